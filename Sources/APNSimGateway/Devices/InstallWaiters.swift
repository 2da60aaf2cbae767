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

    private let waiters = Mutex<[String: Waiter]>([:])

    private func key(_ device: String, _ bundleID: String) -> String { "\(device)\u{1F}\(bundleID)" }

    /// Sends the install of `app` on `session` and waits for the device's answer, at most `timeout`.
    func install(_ app: AppManifest, on session: DeviceSession, timeout: Duration) async -> Outcome {
        let key = key(session.descriptor.id, app.bundleID)
        return await withCheckedContinuation { continuation in
            waiters.withLock { $0[key] = Waiter(session: session, continuation: continuation) }
            session.send(.install(app))
            Task {
                try? await Task.sleep(for: timeout)
                self.waiters.withLock { $0.removeValue(forKey: key) }?.continuation.resume(returning: .timedOut)
            }
        }
    }

    func resolve(device: String, bundleID: String, _ outcome: Outcome) {
        waiters.withLock { $0.removeValue(forKey: key(device, bundleID)) }?.continuation.resume(returning: outcome)
    }

    /// Answers every install still waiting on `session`, which has closed: its device will not answer on it. (A
    /// device stopped mid-install left its HTTP request waiting for the whole timeout.)
    func linkClosed(_ session: DeviceSession) {
        let closed = waiters.withLock { waiters -> [Waiter] in
            let keys = waiters.filter { $0.value.session === session }.keys
            return keys.compactMap { waiters.removeValue(forKey: $0) }
        }
        for waiter in closed { waiter.continuation.resume(returning: .linkClosed) }
    }
}
