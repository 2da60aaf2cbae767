import APNSimCore
import Foundation
import Synchronization

/// Lets `POST /v1/devices/{id}/apps` answer with what the device did: the app's token, or iOS's refusal.
final class InstallWaiters: Sendable {
    enum Outcome: Sendable {
        case installed(DeviceToken)
        case refused(DeviceLinkMessage.InstallRefused)
        case timedOut
    }

    private let waiters = Mutex<[String: CheckedContinuation<Outcome, Never>]>([:])

    private func key(_ device: String, _ bundleID: String) -> String { "\(device)\u{1F}\(bundleID)" }

    /// Waits for the device's answer about `bundleID`, at most `timeout`.
    func outcome(device: String, bundleID: String, timeout: Duration, send: @Sendable () -> Void) async -> Outcome {
        let key = key(device, bundleID)
        return await withCheckedContinuation { continuation in
            waiters.withLock { $0[key] = continuation }
            send()
            Task {
                try? await Task.sleep(for: timeout)
                self.waiters.withLock { $0.removeValue(forKey: key) }?.resume(returning: .timedOut)
            }
        }
    }

    func resolve(device: String, bundleID: String, _ outcome: Outcome) {
        waiters.withLock { $0.removeValue(forKey: key(device, bundleID)) }?.resume(returning: outcome)
    }
}
