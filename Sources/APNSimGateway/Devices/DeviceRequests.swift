import APNSimDeviceLink
import APNSimRules
import Foundation
import Synchronization

/// Control requests waiting for a device's answer, one kind for all of them: an install (`POST /v1/devices/{id}/apps`)
/// waits for the app's `register` or `installRefused`, a tap or dismiss for the `interacted` of its `interact`, a
/// summary delivered on request for the `summarized` of its `deliverSummary`, an app's end of its Live Activity for
/// the device's next `activities`. Each waits on the session its message
/// went out on, so the end of a session answers every request waiting on it at once (``sessionEnded(_:)``).
final class DeviceRequests: Sendable {
    /// What a request waits for.
    enum Awaited: Hashable, Sendable {
        /// The device's answer about an app it was asked to install: every install of the app waiting gets it (a later
        /// install of the same app replaces an earlier one on the device, which then answers once).
        case install(device: String, bundleID: String)
        /// The answer carrying the request's own ID (``DeviceLinkMessage/Interacted/id``, ``SummaryDelivery/id``).
        case reply(id: String)
        /// The device's next report of an app's Live Activities (it answers `endActivity` with one).
        case activities(device: String)
    }

    enum Answer: Sendable {
        case installed(DeviceToken)
        case refused(DeviceLinkMessage.InstallRefused)
        case interacted(DeviceLinkMessage.Interacted)
        case summarized(SummaryDelivery)
        case activities(DeviceLinkMessage.ActivityReport)
    }

    enum Outcome: Sendable {
        case answered(Answer)
        /// The session the request went out on ended before the device answered.
        case sessionEnded
        case timedOut
    }

    private struct Waiter {
        var awaited: Awaited
        var session: DeviceSession
        var continuation: CheckedContinuation<Outcome, Never>
    }

    /// The requests waiting, each under its own ID with its own deadline: two installs of one app at once both wait,
    /// and each times out on its own clock.
    private let waiters = Mutex<[UUID: Waiter]>([:])

    /// Sends `message` on `session` and waits for what `awaited` names, at most `timeout` (a hang guard: a device
    /// answers at once, or after its app's work).
    func ask(_ message: DeviceLinkMessage.ToDevice, awaiting awaited: Awaited, on session: DeviceSession, timeout: Duration) async -> Outcome {
        let id = UUID()
        return await withCheckedContinuation { continuation in
            waiters.withLock { $0[id] = Waiter(awaited: awaited, session: session, continuation: continuation) }
            session.send(message)
            Task {
                try? await Task.sleep(for: timeout)
                self.waiters.withLock { $0.removeValue(forKey: id) }?.continuation.resume(returning: .timedOut)
            }
        }
    }

    /// The device answered: every request waiting for `awaited` gets `answer`. `false` when none waits (an answer
    /// nobody asked for, such as a summary delivered at its time).
    @discardableResult
    func resolve(_ awaited: Awaited, with answer: Answer) -> Bool {
        let answered = take { $0.awaited == awaited }
        for waiter in answered { waiter.continuation.resume(returning: .answered(answer)) }
        return !answered.isEmpty
    }

    /// Answers every request still waiting on `session`, which has ended: its device will not answer on it. (A device
    /// stopped mid-install left its HTTP request waiting for the whole timeout.)
    func sessionEnded(_ session: DeviceSession) {
        for waiter in take({ $0.session === session }) { waiter.continuation.resume(returning: .sessionEnded) }
    }

    /// Removes and returns the waiters that `matches`, under one lock.
    private func take(_ matches: (Waiter) -> Bool) -> [Waiter] {
        waiters.withLock { waiters in
            waiters.filter { matches($0.value) }.keys.compactMap { waiters.removeValue(forKey: $0) }
        }
    }
}
