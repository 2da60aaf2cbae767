#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import Subprocess
import Synchronization
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// Another program apnsim runs and talks to for as long as it lives: an extension executable, a device process of
/// `apnsim up`, the `apnsim` a test starts. Its standard output and error come to `output` as they are written; what
/// `write` is given goes to its standard input, which `closeInput` ends.
///
/// Built on swift-subprocess rather than Foundation's `Process`: on Linux, `Process.run()` reads `/proc/self/fd` by
/// copying whole `dirent` records and crashed (SIGSEGV) in a process holding over a thousand sockets.
public final class ChildProcess: Sendable {
    public let pid: Int32
    private let inputs: AsyncStream<[UInt8]>.Continuation
    private let ended: OneShot<ExitStatus>

    /// How a child process ended.
    public enum ExitStatus: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)
        /// swift-subprocess lost track of it; the sentence says why.
        case unknown(String)

        public var description: String {
            switch self {
            case .exited(let code): "exited with status \(code)"
            case .signalled(let signal): "was killed by signal \(signal)"
            case .unknown(let why): "ended in a way apnsim could not see (\(why))"
            }
        }
    }

    /// Which of the child's streams a chunk of output came from.
    public enum Stream: Sendable { case standardOutput, standardError }

    private init(pid: Int32, inputs: AsyncStream<[UInt8]>.Continuation, ended: OneShot<ExitStatus>) {
        self.pid = pid
        self.inputs = inputs
        self.ended = ended
    }

    /// Starts `command` (an executable, then its arguments; a name without a `/` is looked up in `PATH`) and returns
    /// once it runs; throws a sentence naming the command when it cannot be started.
    /// - Parameter environment: variables to set (or, with `nil`, remove) on top of this process's environment.
    public static func start(
        _ command: [String], environment: [String: String?] = [:], output: @escaping @Sendable (Stream, [UInt8]) -> Void
    ) async throws(ChildProcessError) -> ChildProcess {
        guard let program = command.first, !program.isEmpty else { throw ChildProcessError("no command to start") }
        ignoreBrokenPipes
        let executable: Executable = program.contains("/") ? .path(FilePath(program)) : .name(program)
        let (inputStream, inputs) = AsyncStream.makeStream(of: [UInt8].self)
        let started = OneShot<Result<Int32, ChildProcessError>>()
        let ended = OneShot<ExitStatus>()
        Task {
            let status: ExitStatus
            do {
                let variables = Dictionary(uniqueKeysWithValues: environment.map { (Environment.Key(stringLiteral: $0.key), $0.value) })
                let result = try await Subprocess.run(executable, arguments: Arguments(Array(command.dropFirst())),
                                                      environment: .inherit.updating(variables),
                                                      input: .inputWriter, output: .sequence, error: .sequence) { execution in
                    started.fulfill(.success(execution.processIdentifier.value))
                    let writer = execution.standardInputWriter
                    let writing = Task {
                        for await bytes in inputStream {
                            do { _ = try await writer.write(bytes) } catch { break }
                        }
                        try? await writer.finish()
                    }
                    async let errors: Void = forward(execution.standardError, as: .standardError, to: output)
                    await forward(execution.standardOutput, as: .standardOutput, to: output)
                    await errors
                    writing.cancel()  // it has closed its output: nothing it reads matters now
                    await writing.value
                }
                status = switch result.terminationStatus {
                case .exited(let code): .exited(code)
                case .signaled(let signal): .signalled(signal)
                }
            } catch {
                status = .unknown("\(error)")
                started.fulfill(.failure(ChildProcessError("cannot start \(command.joined(separator: " ")): \(error)")))
            }
            ended.fulfill(status)
        }
        return ChildProcess(pid: try await started.value.get(), inputs: inputs, ended: ended)
    }

    /// Runs `command` to its end (with `environment`'s changes): how it ended, and what it wrote to its standard output
    /// and error together.
    public static func run(_ command: [String], environment: [String: String?] = [:]) async throws(ChildProcessError)
        -> (status: ExitStatus, output: String) {
        final class Printed: Sendable { let bytes = Mutex<[UInt8]>([]) }
        let printed = Printed()
        let child = try await start(command, environment: environment) { _, bytes in printed.bytes.withLock { $0 += bytes } }
        child.closeInput()
        let status = await child.waitForExit()
        return (status, printed.bytes.withLock { String(decoding: $0, as: UTF8.self) })
    }

    /// How it ended; `nil` while it runs.
    public var exitStatus: ExitStatus? { ended.current }

    public var isRunning: Bool { exitStatus == nil }

    /// Waits until it has ended.
    @discardableResult
    public func waitForExit() async -> ExitStatus { await ended.value }

    /// Queues `bytes` for its standard input; `false` once that is closed.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        if case .enqueued = inputs.yield(bytes) { return true }
        return false
    }

    /// Closes its standard input once what was written before has gone.
    public func closeInput() { inputs.finish() }

    /// Sends it `signal` (`SIGTERM`, `SIGKILL`…) unless it has already ended.
    public func signal(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    private static func forward(_ stream: SubprocessOutputSequence, as kind: Stream,
                                to output: @Sendable (Stream, [UInt8]) -> Void) async {
        do {
            for try await buffer in stream { output(kind, buffer.withUnsafeBytes { Array($0) }) }
        } catch {
            // A read error ends the stream as its end would: the exit status says what happened.
        }
    }

    /// A child that dies while apnsim writes to it must be a failed write here, not SIGPIPE ending apnsim.
    private static let ignoreBrokenPipes: Void = {
        #if canImport(Darwin)
        _ = Darwin.signal(SIGPIPE, SIG_IGN)
        #else
        _ = Glibc.signal(SIGPIPE, SIG_IGN)
        #endif
    }()
}

public struct ChildProcessError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A value set once and awaited by any number of tasks: a child's start, then its end.
private final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [CheckedContinuation<Value, Never>] = []
    }
    private let state = Mutex(State())

    /// Sets the value unless it is set already.
    func fulfill(_ value: Value) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, Never>] in
            guard state.value == nil else { return [] }
            state.value = value
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    var current: Value? { state.withLock { $0.value } }

    var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let now = state.withLock { state -> Value? in
                    if state.value == nil { state.waiters.append(continuation) }
                    return state.value
                }
                if let now { continuation.resume(returning: now) }
            }
        }
    }
}
