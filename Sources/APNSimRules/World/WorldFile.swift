import Crypto
import Foundation
import Yams

/// The YAML form of a ``World`` (`Scenarios/sandbox.yaml`). Paths in it are relative to the file. The rules read no
/// files: a key's `publicKeyFile` is read by the `readFile` its caller gives (`WorldFile.load(path:)` in
/// APNSimSandbox reads the world file and its keys from disk).
///
/// ```yaml
/// teams: [{ id: SIMTEAM001, name: Sandbox team }]
/// keys:
///   - { id: SIMKEY0001, team: SIMTEAM001, scope: both, publicKeyFile: ../Certs/AuthKey_SIMKEY0001.pub.pem }
/// apps: [{ bundleID: com.example.app, team: SIMTEAM001 }]
/// tokens:
///   - { token: 3f6c…, bundleID: com.example.app, environment: development, state: active }
/// tokenSets:   # a load test's tokens, the same for the same count and seed (`apnsim tokens` lists them)
///   - { count: 1000000, seed: 42, bundleID: com.example.app, environment: development }
/// ```
public struct WorldFile: Codable, Sendable {
    public var teams: [World.Team]?
    public var keys: [Key]?
    public var apps: [World.App]?
    public var tokens: [World.TokenRecord]?
    public var tokenSets: [TokenSet]?
    public var devices: [World.DeviceSpec]?

    public init(teams: [World.Team]? = nil, keys: [Key]? = nil, apps: [World.App]? = nil, tokens: [World.TokenRecord]? = nil,
                tokenSets: [TokenSet]? = nil, devices: [World.DeviceSpec]? = nil) {
        self.tokenSets = tokenSets
        self.teams = teams
        self.keys = keys
        self.apps = apps
        self.tokens = tokens
        self.devices = devices
    }

    /// A key entry: the public key inline (`publicKey`, PEM) or in a file (`publicKeyFile`).
    public struct Key: Codable, Sendable {
        public var id: String
        public var team: String
        public var scope: ProviderKey.Scope?
        public var topics: [String]?
        public var relatedKeyID: String?
        public var publicKey: String?
        public var publicKeyFile: String?

        public init(id: String, team: String, scope: ProviderKey.Scope? = nil, topics: [String]? = nil,
                    relatedKeyID: String? = nil, publicKey: String? = nil, publicKeyFile: String? = nil) {
            self.id = id
            self.team = team
            self.scope = scope
            self.topics = topics
            self.relatedKeyID = relatedKeyID
            self.publicKey = publicKey
            self.publicKeyFile = publicKeyFile
        }

        /// Resolves the PEM to a key; `directory` anchors a relative `publicKeyFile`, which `readFile` reads.
        public func resolve(relativeTo directory: URL?, readFile: (URL) throws -> String = WorldFile.readsNoFiles) throws -> ProviderKey {
            let pem: String
            if let inline = publicKey {
                pem = inline
            } else if let file = publicKeyFile {
                let url = file.hasPrefix("/") || directory == nil
                    ? URL(fileURLWithPath: file) : directory!.appendingPathComponent(file)
                do {
                    pem = try readFile(url)
                } catch let error as WorldFileError {
                    throw WorldFileError("key \(id): \(error.description)")
                } catch {
                    throw WorldFileError("key \(id): cannot read publicKeyFile \(url.path): \(error.localizedDescription)")
                }
            } else {
                throw WorldFileError("key \(id): give publicKey (PEM) or publicKeyFile")
            }
            let publicKey: P256.Signing.PublicKey
            do {
                publicKey = try P256.Signing.PublicKey(pemRepresentation: pem)
            } catch {
                throw WorldFileError("key \(id): the public key is not a P-256 public key in PEM form (\(error))")
            }
            return ProviderKey(id: id, team: team, scope: scope ?? .both, topics: topics, relatedKeyID: relatedKeyID,
                               publicKey: publicKey)
        }
    }

    /// The reader of a parse that may read no files: a key's `publicKeyFile` is an error.
    public static let readsNoFiles: @Sendable (URL) throws -> String = { url in
        throw WorldFileError("\(url.path) is not read here: give the key's PEM in publicKey")
    }

    /// Parses world YAML; a mistake is one sentence with the file, line and key (``YAMLDocument``). `readFile`
    /// reads a key's `publicKeyFile`, anchored at `directory`.
    public static func parse(_ yaml: String, path: String = "<world>", directory: URL? = nil,
                             readFile: (URL) throws -> String = readsNoFiles) throws -> World {
        let file: WorldFile
        do {
            file = try YAMLDocument.decode(WorldFile.self, from: yaml, path: path)
        } catch {
            throw WorldFileError(error.description)
        }
        var world = World()
        try file.apply(to: &world, path: path, directory: directory, readFile: readFile)
        return world
    }

    /// Adds this file's teams, keys, apps, tokens and devices to `world`, replacing those with the same ID (how a
    /// scenario's `world:` changes the world it `extends`), then checks the result.
    public func apply(to world: inout World, path: String, directory: URL?,
                      readFile: (URL) throws -> String = WorldFile.readsNoFiles) throws {
        for team in teams ?? [] { world.teams[team.id] = team }
        for key in keys ?? [] {
            do {
                world.keys[key.id] = try key.resolve(relativeTo: directory, readFile: readFile)
            } catch let error as WorldFileError {
                throw WorldFileError("\(path): \(error.description)")
            }
        }
        for app in apps ?? [] {
            world.apps[app.bundleID] = directory.map { app.resolvingPaths(relativeTo: $0) } ?? app
        }
        for record in tokens ?? [] { world.tokens[record.token] = record }
        for set in tokenSets ?? [] {
            // A set too large is refused before a token of it is made.
            if let problem = set.problem(in: world) { throw WorldFileError("\(path): \(problem)") }
            world.add(set)
        }
        for device in devices ?? [] {
            if let index = world.devices.firstIndex(where: { $0.id == device.id }) {
                world.devices[index] = device
            } else {
                world.devices.append(device)
            }
        }
        let problems = world.problems
        guard problems.isEmpty else {
            throw WorldFileError("\(path): " + problems.joined(separator: "; "))
        }
    }
}

extension World.App {
    /// The app with its `resources` folder, its extension's `source` and `modules`, and any path in its `executable` (`python/attach.py`),
    /// taken from `directory` when relative.
    public func resolvingPaths(relativeTo directory: URL) -> World.App {
        func resolved(_ path: String) -> String {
            path.hasPrefix("/") ? path : directory.appendingPathComponent(path).standardizedFileURL.path
        }
        var app = self
        app.resources = resources.map(resolved)
        app.serviceExtension?.executable = serviceExtension?.executable?.map { $0.contains("/") ? resolved($0) : $0 }
        app.serviceExtension?.source = serviceExtension?.source.map(resolved)
        app.responses?.delegate?.source = resolved(responses?.delegate?.source ?? "")
        app.serviceExtension?.modules = serviceExtension?.modules.map { module in
            var resolvedModule = module
            resolvedModule.source = resolved(module.source)
            return resolvedModule
        } ?? []
        return app
    }
}

public struct WorldFileError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
