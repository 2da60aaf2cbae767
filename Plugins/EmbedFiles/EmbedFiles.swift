import Foundation
import PackagePlugin

/// Builds files of the package into a target as a generated Swift file, so an apnsim binary copied anywhere has them
/// without its source checkout:
///
/// - APNSimExtensions: apnsim's UserNotifications mirror (Sources/APNSimUserNotifications, its Modules/ stand-ins, and
///   the one file of APNSimRules it compiles in), to build a team's extension (docs/own-extensions.md, "Installing").
/// - APNSimGateway: the control API's OpenAPI description and the records' JSON Schema, which it serves
///   (`GET /v1/openapi.json`, `GET /v1/records.schema.json`) as docs/ has them.
/// - APNSimInbox: the inbox page's HTML, CSS and JavaScript (`Sources/APNSimInbox/Resources`).
/// - APNSimSandbox: the development PKI (`Certs/`), the sandbox world and its media (`Scenarios/sandbox.yaml`,
///   `Scenarios/media/`), which an installed apnsim writes to its data folder on first use (docs/sandbox.md).
@main
struct EmbedFiles: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = context.package.directoryURL
        let (name, files): (String, [URL])
        switch target.name {
        case "APNSimExtensions":
            var mirror: [URL] = []
            let folder = root.appending(path: "Sources/APNSimUserNotifications")
            if let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) {
                for case let file as URL in walker where file.pathExtension == "swift" { mirror.append(file) }
            }
            mirror.append(root.appending(path: "Sources/APNSimRules/Notification/AttachmentRules.swift"))
            (name, files) = ("EmbeddedMirror", mirror.sorted { $0.path < $1.path })
        case "APNSimGateway":
            (name, files) = ("EmbeddedDocs", [root.appending(path: "docs/control-api.openapi.yaml"),
                                              root.appending(path: "docs/records.schema.json")])
        case "APNSimInbox":
            (name, files) = ("EmbeddedInbox", try Self.files(in: root.appending(path: "Sources/APNSimInbox/Resources")) { _ in true })
        case "APNSimSandbox":
            let certs = try Self.files(in: root.appending(path: "Certs")) { ["pem", "p8"].contains($0.pathExtension) }
            let media = try Self.files(in: root.appending(path: "Scenarios/media")) { $0.lastPathComponent != "README.md" }
            (name, files) = ("EmbeddedSandbox", certs + [root.appending(path: "Scenarios/sandbox.yaml")] + media)
        default:
            throw PluginError("EmbedFiles knows no files for \(target.name)")
        }
        let output = context.pluginWorkDirectoryURL.appending(path: "\(name).swift")
        let relative = files.map { String($0.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1)) }
        return [.buildCommand(displayName: "Embedding \(files.count) files in \(target.name) as \(name)",
                              executable: try context.tool(named: "EmbedFilesTool").url,
                              arguments: [output.path, name, root.path] + relative,
                              inputFiles: files, outputFiles: [output])]
    }
}

extension EmbedFiles {
    /// The files directly in `folder` that `keep` keeps, sorted by name.
    static func files(in folder: URL, keep: (URL) -> Bool) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .filter { !$0.lastPathComponent.hasPrefix(".") && keep($0) }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }
}

struct PluginError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
