import APNSimRules
import APNSimGateway
import APNSimInbox
import APNSimProvider
import Foundation
import Synchronization

/// The inbox's composer for a sandbox: each push goes to the gateway's own provider API over TLS, signed with a
/// `.p8` key of the app's team from the certificates folder (`AuthKey_KEYID.p8`; the sandbox's `SIMKEY0001` when
/// the team has none there), as any provider's would be. One JWT per key is reused while
/// ``ProviderTokenSigner/isFresh(issuedAt:at:)`` says it may be.
final class SandboxComposer: Sendable {
    let certs: String
    let world: World
    let clock: WallClock
    /// The media server's URL, once it runs.
    let mediaURL: Mutex<String?>
    let mediaDirectory: String?
    private let tokens = Mutex<[String: (jwt: String, issuedAt: Date)]>([:])

    init(certs: String, world: World, clock: WallClock, mediaDirectory: String?) {
        self.certs = certs
        self.world = world
        self.clock = clock
        self.mediaURL = Mutex(nil)
        self.mediaDirectory = mediaDirectory
    }

    /// The media server runs at `url`.
    func media(at url: String?) { mediaURL.withLock { $0 = url } }

    var composer: InboxComposer {
        InboxComposer(send: { try await self.send($0) }, media: { self.media() })
    }

    private func media() -> InboxComposer.Media? {
        guard let url = mediaURL.withLock({ $0 }) else { return nil }
        let names = mediaDirectory.flatMap { try? FileManager.default.contentsOfDirectory(atPath: $0) } ?? []
        return .init(url: url + "/media", fixtures: names.filter { AttachmentRules.fileType(forExtension: ($0 as NSString).pathExtension) != nil }.sorted())
    }

    private func send(_ push: InboxComposer.Push) async throws -> InboxComposer.Answer {
        let jwt = try token(team: push.team)
        let client = try await ProviderClient.connect(.init(host: "127.0.0.1", port: push.port, caFile: "\(certs)/ca.pem"))
        let response: ProviderResponse
        do {
            response = try await client.send(.push(token: push.token, payload: push.payload,
                                                   headers: push.headers + [("authorization", "bearer \(jwt)")]))
        } catch {
            await client.close()
            throw error
        }
        await client.close()
        return .init(status: response.status, apnsID: response["apns-id"], reason: response.reason)
    }

    /// A JWT of a key of `team` whose `.p8` is in the certificates folder, reused while it is fresh.
    private func token(team: String?) throws -> String {
        let keys = world.keys.values.filter { $0.team == team }.map(\.id).sorted()
        let keyID = keys.first { FileManager.default.fileExists(atPath: "\(certs)/AuthKey_\($0).p8") } ?? "SIMKEY0001"
        let keyTeam = world.keys[keyID]?.team ?? team ?? "SIMTEAM001"
        let now = clock.now()
        if let cached = tokens.withLock({ $0[keyID] }), ProviderTokenSigner.isFresh(issuedAt: cached.issuedAt, at: now) {
            return cached.jwt
        }
        let pem = try String(contentsOfFile: "\(certs)/AuthKey_\(keyID).p8", encoding: .utf8)
        let jwt = try ProviderTokenSigner(p8: pem, keyID: keyID, teamID: keyTeam).token(issuedAt: now)
        tokens.withLock { $0[keyID] = (jwt, now) }
        return jwt
    }
}
