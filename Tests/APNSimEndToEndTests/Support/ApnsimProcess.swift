#if canImport(Glibc)
import APNSimTestKit
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import APNSimExtensions
import APNSimTestSupport
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// The `apnsim` binary as users run it, as a child process of the test, with what it prints collected so a test
/// can wait for a line instead of sleeping.
final class ApnsimProcess: Sendable {
    let process: ChildProcess
    private let output: Output

    /// The `apnsim` executable SwiftPM built beside this test bundle.
    static var executable: URL {
        get throws {
            let directory = Bundle.main.executableURL?.deletingLastPathComponent()
                ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            for candidate in [directory, directory.deletingLastPathComponent()] {
                let url = candidate.appendingPathComponent("apnsim")
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
            throw HarnessError("no apnsim executable next to \(directory.path); build it with swift build")
        }
    }

    /// Starts `apnsim ARGUMENTS…`, its standard output and error (logs too, so a failure shows them) collected
    /// together. Its standard input stays open until it ends. `wrapper` is a command that execs the rest of its
    /// arguments in a changed environment (``Capabilities/withoutNetAdmin``).
    init(_ arguments: [String], under wrapper: [String] = [], environment: [String: String?] = [:]) async throws {
        let output = Output()
        process = try await ChildProcess.start(wrapper + [try Self.executable.path] + arguments,
                                               environment: environment) { _, bytes in output.append(Data(bytes)) }
        self.output = output
        Task { [process] in
            await process.waitForExit()
            output.closed()
        }
    }

    /// No test leaves a process behind, even one that fails half-way: a child still running would keep `swift test`
    /// waiting on the output it inherited.
    deinit {
        process.signal(SIGKILL)
    }

    var pid: Int32 { process.pid }

    /// Everything printed so far.
    var printed: String { output.text }

    /// Waits until the output contains `text` (or `timeout` passes, which throws).
    func waitForOutput(_ text: String, timeout: Duration = HangGuard.limit) async throws -> String {
        try await output.wait(timeout: timeout) { $0.contains(text) }
    }

    /// Waits until `check` holds for the output (or `timeout` passes, which throws).
    func waitForOutput(timeout: Duration = HangGuard.limit, until check: @escaping @Sendable (String) -> Bool) async throws -> String {
        try await output.wait(timeout: timeout, until: check)
    }

    func signal(_ signal: Int32) {
        process.signal(signal)
    }

    /// How long the process took to exit after this call, or `nil` when it still runs after `timeout`. Giving up on
    /// the wait kills it, so no test leaves a process behind.
    func exitTime(within timeout: Duration) async -> Duration? {
        let start = ContinuousClock.now
        let took = try? await withHangGuard(timeout) { [process] in
            await withTaskCancellationHandler { await process.waitForExit() } onCancel: { process.signal(SIGKILL) }
            return ContinuousClock.now - start
        }
        return took ?? nil
    }

    /// Stops the process as Ctrl-C would and waits for it.
    func stop() async {
        process.signal(SIGINT)
        await process.waitForExit()
    }

    private final class Output: Sendable {
        private struct Waiter {
            var check: @Sendable (String) -> Bool
            var continuation: CheckedContinuation<String?, Never>
        }
        private struct State {
            var data = Data()
            var closed = false
            var waiters: [UUID: Waiter] = [:]
        }
        private let state = Mutex(State())

        var text: String { state.withLock { String(decoding: $0.data, as: UTF8.self) } }

        func append(_ data: Data) {
            let ready = state.withLock { state -> [(CheckedContinuation<String?, Never>, String)] in
                state.data.append(data)
                let text = String(decoding: state.data, as: UTF8.self)
                let met = state.waiters.filter { $0.value.check(text) }
                for id in met.keys { state.waiters[id] = nil }
                return met.values.map { ($0.continuation, text) }
            }
            for (continuation, text) in ready { continuation.resume(returning: text) }
        }

        func closed() {
            let waiting = state.withLock { state in
                state.closed = true
                defer { state.waiters.removeAll() }
                return Array(state.waiters.values)
            }
            for waiter in waiting { waiter.continuation.resume(returning: nil) }
        }

        /// The output once `check` holds for it; throws if the process closed its output first or `timeout` passed.
        func wait(timeout: Duration, until check: @escaping @Sendable (String) -> Bool) async throws -> String {
            guard let found = try await withHangGuard(timeout, { await self.next(matching: check) }), let found else {
                throw HarnessError("the process did not print what was expected; it printed:\n\(text)")
            }
            return found
        }

        /// The output once `check` holds for it; `nil` if the process closes its output first or the task is cancelled.
        private func next(matching check: @escaping @Sendable (String) -> Bool) async -> String? {
            let id = UUID()
            return await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    let now = state.withLock { state -> String?? in
                        let text = String(decoding: state.data, as: UTF8.self)
                        if check(text) { return .some(text) }
                        if state.closed || Task.isCancelled { return .some(nil) }
                        state.waiters[id] = Waiter(check: check, continuation: continuation)
                        return nil
                    }
                    if let now { continuation.resume(returning: now) }
                }
            } onCancel: {
                state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: nil)
            }
        }
    }
}

/// A TCP port nothing listens on: the kernel picks a free one for a moment, and it is released at once.
/// A loopback port nothing listens on, held until ``close()``: a socket bound to it and never listening, so a
/// connection to it is refused, and no server started meanwhile on port 0 (this test's or another's) can be given
/// it. Choosing a free port and closing it raced those servers: one was given the port, and the "closed" URL of
/// `ServiceExtensionTests.brazeFailure` downloaded the media.
final class ClosedPort: Sendable {
    let port: Int
    private let descriptor: Int32

    init() throws {
        guard let (descriptor, port) = LoopbackSocket.bound(to: 0) else {
            throw HarnessError("cannot hold a closed loopback port: errno \(errno)")
        }
        self.descriptor = descriptor
        self.port = port
    }

    /// Lets the port go (the end of the test that needed it closed).
    func close() {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }
}

/// A TCP socket bound to a port on 127.0.0.1 (0: one the kernel picks), never listening.
enum LoopbackSocket {
    /// The bound socket and its port, or `nil` (with `errno` set) when the port cannot be bound. `reuseAddress` binds
    /// as the gateway does (SO_REUSEADDR), to ask whether it could bind the port; without it the socket holds the port.
    static func bound(to port: Int, reuseAddress: Bool = false) -> (descriptor: Int32, port: Int)? {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return nil }
        if reuseAddress {
            var on: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            let saved = errno
            close(descriptor)
            errno = saved
            return nil
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }
}
