import Foundation

/// The files apnsim's defaults name: the development PKI (`Certs/`), the sandbox world (`Scenarios/sandbox.yaml`) and
/// the media its rich pushes attach (`Scenarios/media/`).
///
/// A checkout's are used when the working directory has them, as `swift run apnsim up` always has. Elsewhere (an
/// installed binary, a folder of a team's own) the copies built into this binary are used: written on first use to
/// apnsim's data folder (``DataHome``), laid out as a checkout has them so the world's relative paths hold. A file
/// already there is kept: providers trust that CA and sign with that key, and a user may have edited the world.
/// Deleting the folder brings the binary's own back.
///
/// apnsim ships one development PKI rather than generating one per user: a provider set up once (its CA to trust, its
/// signing key) then works against every apnsim, the checkout, an installed binary, the image, compose and
/// Kubernetes alike, and CI jobs need not fetch a CA per run. Its keys are public, so it proves nothing: trust its CA
/// in a test's client only, never in a system's trust store (docs/sandbox.md, "Certificates").
public struct DevelopmentFiles: Sendable {
    /// What a default names.
    public enum Kind: String, Sendable, CaseIterable {
        /// The folder of the development PKI.
        case certs
        /// The sandbox world file.
        case world
        /// The folder of the sandbox's media.
        case media

        /// Its path in a checkout (and in the data folder).
        public var path: String {
            switch self {
            case .certs: "Certs"
            case .world: "Scenarios/sandbox.yaml"
            case .media: "Scenarios/media"
            }
        }

        /// The file whose presence in the working directory says a checkout holds it.
        var marker: String {
            switch self {
            case .certs: "Certs/ca.pem"
            case .world: "Scenarios/sandbox.yaml"
            case .media: "Scenarios/media/sample.jpg"
            }
        }
    }

    /// Where a path came from.
    public enum Origin: Sendable, Equatable {
        /// The user named it (an option or its variable).
        case given
        /// In the working directory, a checkout of apnsim.
        case checkout
        /// In apnsim's data folder, written from the binary's copies.
        case dataFolder
    }

    /// A path and where it came from.
    public struct Found: Sendable, Equatable {
        public var path: String
        public var origin: Origin

        public init(path: String, origin: Origin) {
            self.path = path
            self.origin = origin
        }

        /// How `apnsim up` says where it came from.
        public var described: String {
            switch origin {
            case .given: path
            case .checkout: "\(path) (this checkout)"
            case .dataFolder: "\(path) (built into apnsim)"
            }
        }
    }

    /// Why the binary's copies could not be written: one sentence naming the folder and what to do.
    public struct WriteError: Error, CustomStringConvertible {
        public var description: String
    }

    let workingDirectory: URL
    /// apnsim's data folder.
    public let home: URL

    public init(workingDirectory: String = FileManager.default.currentDirectoryPath,
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.workingDirectory = URL(fileURLWithPath: workingDirectory)
        home = DataHome.folder(environment: environment)
    }

    /// `given` when the user named a path, else `kind`'s default.
    public func find(_ kind: Kind, given: String?) throws(WriteError) -> Found {
        if let given { return Found(path: given, origin: .given) }
        return try find(kind)
    }

    /// `kind`'s default: the checkout's when the working directory has it (by its relative path, as before), else the
    /// data folder's, written from the binary first where missing.
    public func find(_ kind: Kind) throws(WriteError) -> Found {
        if FileManager.default.fileExists(atPath: workingDirectory.appendingPathComponent(kind.marker).path) {
            return Found(path: kind.path, origin: .checkout)
        }
        try writeBuiltIn()
        return Found(path: home.appendingPathComponent(kind.path).path, origin: .dataFolder)
    }

    /// Writes each of the binary's files that the data folder lacks; returns the paths written. Private keys are
    /// readable by their owner alone.
    @discardableResult
    public func writeBuiltIn() throws(WriteError) -> [String] {
        var written: [String] = []
        for file in Self.builtIn {
            let target = home.appendingPathComponent(file.path)
            guard !FileManager.default.fileExists(atPath: target.path) else { continue }
            do {
                try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                try file.data.write(to: target, options: .atomic)
                if file.path.hasSuffix("key.pem") || file.path.hasSuffix(".p8") {
                    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target.path)
                }
            } catch {
                throw WriteError(description: "apnsim cannot write its development files to \(home.path) (\(target.lastPathComponent): "
                                 + "\(error.localizedDescription)); set \(DataHome.variable) to a folder this user can write, or give --certs and --world")
            }
            written.append(target.path)
        }
        return written
    }

    /// The files built into this binary (the EmbedFiles plugin), by their path in a checkout.
    public static let builtIn: [(path: String, data: Data)] = EmbeddedSandbox.files.compactMap { file in
        Data(base64Encoded: file.base64).map { (file.path, $0) }
    }
}
