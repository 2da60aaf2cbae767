import APNSimCore
import Foundation
import Synchronization

/// Lets `POST /v1/devices/{id}/tap` and `…/dismiss` answer with what the device did: the interaction record, or why
/// nothing happened. Each request waits under its own ID (the `interact` message's) for the device's `interacted`.
final class InteractionWaiters: Sendable {
    enum Outcome: Sendable {
        case answered(DeviceLinkMessage.Interacted)
        /// The link the request went out on closed before the device answered.
        case linkClosed
        case timedOut
    }

    private struct Waiter {
        var session: DeviceSession
        var continuation: CheckedContinuation<Outcome, Never>
    }

    private let waiters = Mutex<[String: Waiter]>([:])

    /// Sends `interact` on `session` and waits for the device's answer, at most `timeout` (a hang guard: a device
    /// answers at once, from what it shows).
    func interact(_ interact: DeviceLinkMessage.Interact, on session: DeviceSession, timeout: Duration) async -> Outcome {
        await withCheckedContinuation { continuation in
            waiters.withLock { $0[interact.id] = Waiter(session: session, continuation: continuation) }
            session.send(.interact(interact))
            Task {
                try? await Task.sleep(for: timeout)
                self.waiters.withLock { $0.removeValue(forKey: interact.id) }?.continuation.resume(returning: .timedOut)
            }
        }
    }

    /// The device answered request `answer.id`.
    func resolve(_ answer: DeviceLinkMessage.Interacted) {
        waiters.withLock { $0.removeValue(forKey: answer.id) }?.continuation.resume(returning: .answered(answer))
    }

    /// Answers every request still waiting on `session`, which has closed.
    func linkClosed(_ session: DeviceSession) {
        let closed = waiters.withLock { waiters in
            waiters.filter { $0.value.session === session }.keys.compactMap { waiters.removeValue(forKey: $0) }
        }
        for waiter in closed { waiter.continuation.resume(returning: .linkClosed) }
    }
}
