import Foundation
import PackagePlugin

/// Embeds apnsim's UserNotifications mirror (Sources/APNSimUserNotifications, its Modules/ stand-ins, and the one file
/// of APNSimCore it compiles in) into the target as a generated Swift file, so an apnsim binary copied anywhere can
/// build a team's extension without its source checkout (docs/own-extensions.md, "Installing").
@main
struct EmbedMirror: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = context.package.directoryURL
        let mirror = root.appending(path: "Sources/APNSimUserNotifications")
        var files: [URL] = []
        if let walker = FileManager.default.enumerator(at: mirror, includingPropertiesForKeys: nil) {
            for case let file as URL in walker where file.pathExtension == "swift" { files.append(file) }
        }
        files.append(root.appending(path: "Sources/APNSimCore/Notification/AttachmentRules.swift"))
        files.sort { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMirror.swift")
        let relative = files.map { String($0.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1)) }
        return [.buildCommand(displayName: "Embedding apnsim's UserNotifications mirror (\(files.count) files)",
                              executable: try context.tool(named: "EmbedMirrorTool").url,
                              arguments: [output.path, root.path] + relative,
                              inputFiles: files, outputFiles: [output])]
    }
}
