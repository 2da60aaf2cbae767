import APNSimCore
import Foundation
import Synchronization

/// Lets `POST /v1/devices/{id}/apps` answer with what the device did: the app's token, or iOS's refusal.
final class InstallWaiters: Sendable {
    enum Outcome: Sendable {
        case installed(DeviceToken)
        case refused(DeviceLinkMessage.InstallRefused)
        /// The link the install went out on closed before the device answered.
        case linkClosed
        case timedOut
    }

    private struct Waiter {
        var session: DeviceSession
        var continuation: CheckedContinuation<Outcome, Never>
    }

    /// The requests waiting, per device and app, each under its own ID with its own deadline: two installs of one app
    /// at once both wait, and each times out on its own clock.
    private let waiters = Mutex<[String: [UUID: Waiter]]>([:])

    private func key(_ device: String, _ bundleID: String) -> String { "\(device)\u{1F}\(bundleID)" }

    /// Sends the install of `app` on `session` and waits for the device's answer, at most `timeout`.
    func install(_ app: AppManifest, on session: DeviceSession, timeout: Duration) async -> Outcome {
        let key = key(session.descriptor.id, app.bundleID)
        let id = UUID()
        return await withCheckedContinuation { continuation in
            waiters.withLock { $0[key, default: [:]][id] = Waiter(session: session, continuation: continuation) }
            session.send(.install(app))
            Task {
                try? await Task.sleep(for: timeout)
                self.take(key) { $0 == id }.first?.continuation.resume(returning: .timedOut)
            }
        }
    }

    /// The device answered about the app: every request waiting for it gets the answer (a later install of the same
    /// app replaces an earlier one on the device, which then answers once, for the app as it now is).
    func resolve(device: String, bundleID: String, _ outcome: Outcome) {
        for waiter in take(key(device, bundleID), { _ in true }) { waiter.continuation.resume(returning: outcome) }
    }

    /// Answers every install still waiting on `session`, which has closed: its device will not answer on it. (A
    /// device stopped mid-install left its HTTP request waiting for the whole timeout.)
    func linkClosed(_ session: DeviceSession) {
        let closed = waiters.withLock { waiters -> [Waiter] in
            var closed: [Waiter] = []
            for (key, waiting) in waiters {
                let onSession = waiting.filter { $0.value.session === session }
                closed += onSession.values
                waiters[key] = waiting.filter { $0.value.session !== session }
                if waiters[key]?.isEmpty == true { waiters[key] = nil }
            }
            return closed
        }
        for waiter in closed { waiter.continuation.resume(returning: .linkClosed) }
    }

    /// Removes and returns the waiters of `key` whose ID `matches`.
    private func take(_ key: String, _ matches: (UUID) -> Bool) -> [Waiter] {
        waiters.withLock { waiters in
            let ids = waiters[key]?.keys.filter(matches) ?? []
            let taken = ids.compactMap { waiters[key]?.removeValue(forKey: $0) }
            if waiters[key]?.isEmpty == true { waiters[key] = nil }
            return taken
        }
    }
}
