import APNSimRules
import APNSimProvider
import APNSimSandbox
import Foundation

/// The inputs every fuzz test starts from: the sandbox world as `apnsim up` loads it, and its committed key.
enum FuzzFixtures {
    /// The package root, found from this file's path (tests run from any directory).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let sandboxPath = root.appendingPathComponent("Scenarios/sandbox.yaml").path

    static let world: World = {
        do { return try WorldFile.load(path: sandboxPath) } catch { fatalError("the sandbox world does not load: \(error)") }
    }()

    static let signer: ProviderTokenSigner = {
        do {
            let p8 = try String(contentsOf: root.appendingPathComponent("Certs/AuthKey_SIMKEY0001.p8"), encoding: .utf8)
            return try ProviderTokenSigner(p8: p8, keyID: "SIMKEY0001", teamID: "SIMTEAM001")
        } catch {
            fatalError("Certs/AuthKey_SIMKEY0001.p8 does not load: \(error)")
        }
    }()

    /// A fixed time, so every run validates the same inputs against the same clock.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    /// The sandbox app's push-to-start token for DeliveryAttributes.
    static let pushToStartToken = DeviceToken(String(repeating: "cd", count: 32))!

    /// The activity's push token (80 bytes, as ActivityKit's).
    static let activityToken = DeviceToken(String(repeating: "ab", count: 80))!

    /// A running delivery-tracking activity with its own token, for device-link messages that carry one.
    static let activity = LiveActivity(id: "act-1", bundleID: "com.example.app", attributesType: "DeliveryAttributes",
                                       attributes: ["orderID": .string("A-1")], contentState: ["status": .string("packed")],
                                       startedAt: now, pushToken: activityToken, timestamp: now)

    /// A valid token for ``now``, signed once with `Certs/AuthKey_SIMKEY0001.p8` by Apple's openssl recipe (a DER
    /// signature) and kept as text: ECDSA signatures are randomized, and a fuzz corpus must be the same every run.
    static let jwt = "eyJhbGciOiJFUzI1NiIsImtpZCI6IlNJTUtFWTAwMDEifQ.eyJpc3MiOiJTSU1URUFNMDAxIiwiaWF0IjoxODAwMDAwMDAwfQ."
        + "MEQCIGmg-yW1ohRnwRl5xFS6F5ZAh_QHMsjYdRqRR-9CuusGAiAtw5z9_mQvfWc3HKeeTP9-GROSXml8T9BhciUM8M0Ggw"

    static let developmentToken = "4a1159f70e8ea285a838979ff0918a664380fb5d614d952dfe10fa5a4cee141a"
}
