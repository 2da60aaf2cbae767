import APNSimRules
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// `GET`/`POST` of `/v1/teams`, `/v1/keys`, `/v1/apps` and `/v1/tokens`. A POST takes a JSON array and
/// adds or replaces each entry by its ID; it checks the whole array first and changes nothing if any entry is bad.
/// `/v1/tokens` shows the token table: each token with its kind and the device that holds it (none for a declared
/// token: its pushes are accepted and go nowhere, with a send record and no delivery record).
extension ControlAPI {
    func addWorldRoutes(to v1: RouterGroup<BasicRequestContext>) {
        v1.get("teams") { _, _ in
            try ControlJSON.response(self.world.read { $0.teams.values.sorted { $0.id < $1.id } })
        }
        v1.post("teams") { request, _ in
            try await self.change(request, as: [World.Team].self) { teams, world in
                for team in teams { world.teams[team.id] = team }
            }
        }
        v1.get("apps") { _, _ in
            try ControlJSON.response(self.world.read { $0.apps.values.sorted { $0.bundleID < $1.bundleID } })
        }
        v1.post("apps") { request, _ in
            try await self.change(request, as: [World.App].self) { apps, world in
                for app in apps { world.apps[app.bundleID] = app }
            }
        }
        v1.get("keys") { _, _ in
            try ControlJSON.response(self.world.read { $0.keys.values.sorted { $0.id < $1.id }.map(KeyView.init) })
        }
        v1.post("keys") { request, _ in
            try await self.change(request, as: [WorldFile.Key].self) { keys, world in
                for entry in keys {
                    guard entry.publicKeyFile == nil else {
                        throw ControlAPIError("key \(entry.id): send the PEM in publicKey; the control API reads no files")
                    }
                    world.keys[entry.id] = try entry.resolve(relativeTo: nil)
                }
            }
        }
        v1.get("tokens") { request, _ in
            let query: (after: DeviceToken?, limit: Int)
            do throws(ControlAPIError) {
                query = try ControlQuery.tokenPage(request.queryValues)
            } catch {
                return ControlJSON.error(error.description)
            }
            let (page, more) = self.devices.tokens(after: query.after, limit: query.limit)
            var response = try ControlJSON.response(page)
            // The next page, as RFC 8288 links it: after the last token of this one.
            if more, let last = page.last {
                response.headers[HTTPField.Name("Link")!] = "</v1/tokens?cursor=\(last.token.hex)&limit=\(query.limit)>; rel=\"next\""
            }
            return response
        }
        v1.post("tokens") { request, _ in
            let declared: DeclaredTokens
            do {
                declared = try await ControlJSON.decode(DeclaredTokens.self, from: request)
            } catch let error as ControlAPIError {
                return ControlJSON.error(error.description)
            }
            let problems = self.world.declare(declared, now: self.clock.now())
            guard problems.isEmpty else { return ControlJSON.error(problems.joined(separator: "; ") + "; nothing was changed") }
            return try ControlJSON.response(["status": "ok"])
        }
    }

    /// Decodes `T`, applies `apply` to a copy of the world, and commits it only if the result has no problems.
    private func change<T: Decodable>(_ request: Request, as type: T.Type,
                                      _ apply: (T, inout World) throws -> Void) async throws -> Response {
        let entries: T
        do {
            entries = try await ControlJSON.decode(T.self, from: request)
        } catch let error as ControlAPIError {
            return ControlJSON.error(error.description)
        }
        let problems: [String] = world.update { world in
            var candidate = world
            do {
                try apply(entries, &candidate)
            } catch {
                return ["\(error)"]
            }
            let problems = candidate.problems
            if problems.isEmpty { world = candidate }
            return problems
        }
        guard problems.isEmpty else {
            return ControlJSON.error(problems.joined(separator: "; ") + "; nothing was changed")
        }
        return try ControlJSON.response(["status": "ok"])
    }
}

/// A key as the control API shows it: the public key as PEM.
struct KeyView: Encodable {
    var id: String
    var team: String
    var scope: ProviderKey.Scope
    var topics: [String]?
    var relatedKeyID: String?
    var publicKey: String

    init(_ key: ProviderKey) {
        id = key.id
        team = key.team
        scope = key.scope
        topics = key.topics
        relatedKeyID = key.relatedKeyID
        publicKey = key.publicKey.pemRepresentation
    }
}
