import APNSimDeviceLink
import APNSimRules
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
        /// The device and app it waits for (``key(_:_:)``).
        var key: String
        var session: DeviceSession
        var continuation: CheckedContinuation<Outcome, Never>
    }

    /// The requests waiting, each under its own ID with its own deadline: two installs of one app at once both wait,
    /// and each times out on its own clock.
    private let waiters = Mutex<[UUID: Waiter]>([:])

    private func key(_ device: String, _ bundleID: String) -> String { "\(device)\u{1F}\(bundleID)" }

    /// Sends the install of `app` on `session` and waits for the device's answer, at most `timeout`.
    func install(_ app: AppManifest, on session: DeviceSession, timeout: Duration) async -> Outcome {
        let id = UUID(), key = key(session.descriptor.id, app.bundleID)
        return await withCheckedContinuation { continuation in
            waiters.withLock { $0[id] = Waiter(key: key, session: session, continuation: continuation) }
            session.send(.install(app))
            Task {
                try? await Task.sleep(for: timeout)
                self.waiters.withLock { $0.removeValue(forKey: id) }?.continuation.resume(returning: .timedOut)
            }
        }
    }

    /// The device answered about the app: every request waiting for it gets the answer (a later install of the same
    /// app replaces an earlier one on the device, which then answers once, for the app as it now is).
    func resolve(device: String, bundleID: String, _ outcome: Outcome) {
        let key = key(device, bundleID)
        for waiter in take({ $0.key == key }) { waiter.continuation.resume(returning: outcome) }
    }

    /// Answers every install still waiting on `session`, which has closed: its device will not answer on it. (A
    /// device stopped mid-install left its HTTP request waiting for the whole timeout.)
    func linkClosed(_ session: DeviceSession) {
        for waiter in take({ $0.session === session }) { waiter.continuation.resume(returning: .linkClosed) }
    }

    /// Removes and returns the waiters that `matches`, under one lock.
    private func take(_ matches: (Waiter) -> Bool) -> [Waiter] {
        waiters.withLock { waiters in
            waiters.filter { matches($0.value) }.keys.compactMap { waiters.removeValue(forKey: $0) }
        }
    }
}
