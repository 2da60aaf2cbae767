#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Foundation
import Testing

/// How long anything a test waits for may take before the test gives up on it as hung: ten minutes. Only a hang runs
/// into it, on any machine, however busy; what is waited for is a signal, a long-poll or a line a process prints,
/// never the time itself. The gateways, devices and clients tests start get it for every timeout a test is not
/// about (a provider's handshake, a device's connect, the link's heartbeats, an extension's grace, a client's read),
/// so that no product timeout decides a verdict on a slow machine.
public enum HangGuard {
    public static let limit: Duration = .seconds(600)
}

/// The one way a test bounds a wait: `body`'s value, or `nil` once `limit` has passed, when `body` is cancelled (it
/// must end on cancellation). The bound only ends a wait that would never end; what is waited for is a signal, a
/// long-poll or a line a process prints, never the time itself.
public func withHangGuard<T: Sendable>(_ limit: Duration = HangGuard.limit,
                                       _ body: @escaping @Sendable () async throws -> T) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }  // the loser's end (a cancelled sleep's error) is not waited on here
        return try await group.next() ?? nil
    }
}

extension Trait where Self == TimeLimitTrait {
    /// A test's time limit as a guard against a hang, never a speed: longer than ``HangGuard/limit``, so a wait that
    /// hangs fails first, saying what it waited for.
    public static var hangGuard: Self { .timeLimit(.minutes(15)) }
}

/// Returns when process `pid`, which need not be this test's child, has ended (a zombie counts), or at once when
/// there is no such process. Linux says so through a pidfd, which becomes readable when the process exits; macOS
/// through a process source. Nothing is polled. Cancelling the wait ends it.
public func processExit(_ pid: Int32) async {
    #if canImport(Glibc)
    // pidfd_open(2) (Linux 5.3, glibc 2.36), looked up by name: Glibc's module does not bring <sys/pidfd.h>, and
    // syscall(2), being variadic, is not callable from Swift.
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open") else {
        Issue.record("cannot watch process \(pid) end: this C library has no pidfd_open (glibc 2.36 or later has it)")
        return
    }
    let pidfdOpen = unsafeBitCast(symbol, to: (@convention(c) (pid_t, UInt32) -> Int32).self)
    let descriptor = pidfdOpen(pid, 0)
    guard descriptor >= 0 else { return }  // ESRCH: it has gone already
    let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .global())
    source.setCancelHandler { close(descriptor) }
    let ended = { false }  // a pidfd of a process that has exited is readable at once
    #else
    let source = DispatchSource.makeProcessSource(identifier: pid, eventMask: .exit, queue: .global())
    let ended = { kill(pid, 0) != 0 }  // one that exited before the source was set up sends no event
    #endif
    let once = Once()
    await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            once.set(continuation)
            source.setEventHandler { once.resume() }
            source.resume()
            if Task.isCancelled || ended() { once.resume() }
        }
    } onCancel: {
        once.resume()
    }
    source.cancel()
}

/// A continuation resumed once, by whichever comes first.
private final class Once: @unchecked Sendable {  // `continuation` and `done` are touched only under `lock`
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Void, Never>?
    private var done = false

    func set(_ continuation: CheckedContinuation<Void, Never>) {
        let now = lock.withLock { () -> Bool in
            if done { return true }
            self.continuation = continuation
            return false
        }
        if now { continuation.resume() }
    }

    func resume() {
        let waiting = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            done = true
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume()
    }
}
