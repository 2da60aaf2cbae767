import APNSimDeviceLink
import APNSimRules
import Foundation
import Synchronization

/// Lets a control request answer with what a device did about the message it sent: `POST /v1/devices/{id}/tap`
/// waits for the `interacted` of its `interact`, `…/summary/deliver` for the `summarized` of its `deliverSummary`.
/// Each request waits under its own ID (its message's) for the answer carrying that ID.
final class DeviceAnswers<Answer: Sendable>: Sendable {
    enum Outcome: Sendable {
        case answered(Answer)
        /// The link the request went out on closed before the device answered.
        case linkClosed
        case timedOut
    }

    private struct Waiter {
        var session: DeviceSession
        var continuation: CheckedContinuation<Outcome, Never>
    }

    private let waiters = Mutex<[String: Waiter]>([:])

    /// Sends `message`, whose answer carries `id`, on `session` and waits for the device's answer, at most `timeout`
    /// (a hang guard: a device answers at once, or after its app's work).
    func ask(_ message: DeviceLinkMessage.ToDevice, id: String, on session: DeviceSession, timeout: Duration) async -> Outcome {
        await withCheckedContinuation { continuation in
            waiters.withLock { $0[id] = Waiter(session: session, continuation: continuation) }
            session.send(message)
            Task {
                try? await Task.sleep(for: timeout)
                self.waiters.withLock { $0.removeValue(forKey: id) }?.continuation.resume(returning: .timedOut)
            }
        }
    }

    /// The device answered request `id`; `false` when nobody waits for it (an answer nobody asked for, such as a
    /// summary delivered at its time).
    @discardableResult
    func resolve(_ id: String, with answer: Answer) -> Bool {
        guard let waiter = waiters.withLock({ $0.removeValue(forKey: id) }) else { return false }
        waiter.continuation.resume(returning: .answered(answer))
        return true
    }

    /// Answers every request still waiting on `session`, which has closed.
    func linkClosed(_ session: DeviceSession) {
        let closed = waiters.withLock { waiters in
            waiters.filter { $0.value.session === session }.keys.compactMap { waiters.removeValue(forKey: $0) }
        }
        for waiter in closed { waiter.continuation.resume(returning: .linkClosed) }
    }
}
