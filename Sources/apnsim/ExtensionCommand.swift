import APNSimRules
import APNSimExtensions
import ArgumentParser
import Foundation
import Logging

/// `apnsim extension`: build a team's own service extension and try it on one payload, without a world or a device.
struct ExtensionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extension",
        abstract: "Build your own notification service extension and run it on one payload (docs/own-extensions.md).",
        subcommands: [Build.self, Run.self]
    )

    /// How a Swift source is built: `build` and `run` take the same options.
    struct SwiftBuildOptions: ParsableArguments {
        @Option(name: .customLong("principal-class"), help: "The class to run, as NSExtensionPrincipalClass names it; by default the one an Info.plist beside the source names, else the most-derived subclass of UNNotificationServiceExtension.")
        var principalClass: String?

        @Option(name: .customLong("module"), help: "A Swift module the extension imports, NAME:PATH (a folder of Swift files, such as a vendor's extension module as SwiftPM checked it out); built first, under its own name; repeatable.")
        var modules: [String] = []

        @Option(name: .customLong("package"), help: "A library product of a Swift package the extension imports, PRODUCT:PATH (the package's folder, such as .build/checkouts/vendor-sdk); its targets are built first, each under its own name; repeatable.")
        var packages: [String] = []

        /// `--module NAME:PATH` and `--package PRODUCT:PATH` values as modules.
        func parsedModules() throws -> [ServiceExtensionManifest.Module] {
            try modules.map { value in
                let (name, path) = try Self.split(value, option: "--module", example: "VendorExtension:vendor/Sources/VendorExtension")
                return .init(name: name, source: path)
            } + packages.map { value in
                let (product, path) = try Self.split(value, option: "--package", example: "VendorExtension:.build/checkouts/vendor-sdk")
                return .init(package: path, product: product)
            }
        }

        private static func split(_ value: String, option: String, example: String) throws -> (String, String) {
            let parts = value.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ExtensionCommand.fail("\(option) takes NAME:PATH, such as \(example); got \(value)")
            }
            return (parts[0], parts[1])
        }
    }

    struct Build: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Build a NotificationService.swift (or a folder of Swift files) written against Apple's UserNotifications.")

        @Argument(help: "The extension's Swift file, or a folder of Swift files.")
        var path: String

        @OptionGroup var swiftBuild: SwiftBuildOptions

        func run() async throws {
            let started = ContinuousClock.now
            let modules = try swiftBuild.parsedModules()
            Console.say("apnsim extension: building \(path)…")
            do {
                let product = try await SwiftExtensionBuilder().build(path, principalClass: swiftBuild.principalClass, modules: modules)
                Console.say("apnsim extension: built \(product.principalClass) in \(Seconds(ContinuousClock.now - started)): \(product.executable.path)")
            } catch {
                throw ExtensionCommand.fail("\(error)")
            }
        }
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run an extension on one payload and print what the device would display, and why.",
            discussion: """
                PATH is a Swift file or folder (built first, as `build` does) or an executable speaking \
                docs/extension-protocol.md. The payload is the push's JSON body, with `mutable-content: 1`.
                """)

        @Argument(help: "The extension: a Swift file or folder, or an executable.")
        var path: String

        @Option(help: "The push's JSON payload.")
        var payload: String

        @OptionGroup var swiftBuild: SwiftBuildOptions

        @Option(help: "The app's resources folder, where the extension's Bundle.main finds bundled files.")
        var resources: String?

        @Option(help: "Seconds the extension has before serviceExtensionTimeWillExpire (iOS: about 30).")
        var budget: Double = 30

        @Option(name: .customLong("app-group"), help: "An App Group both the app and the extension list (group.com.example.app): FileManager.containerURL finds its container; repeatable.")
        var appGroups: [String] = []

        @Flag(help: "The app has the com.apple.developer.usernotifications.filtering entitlement.")
        var filtering = false

        @Flag(help: "Print the displayed record as JSON.")
        var json = false

        @Flag(help: "Keep the run's folder (the attachments the extension handed over) and say where it is; by default it is removed.")
        var keep = false

        func validate() throws {
            guard (0.1...600).contains(budget) else { throw ValidationError("--budget takes 0.1 to 600 seconds; got \(budget)") }
        }

        func run() async throws {
            guard FileManager.default.fileExists(atPath: payload) else { throw ExtensionCommand.fail("the payload file \(payload) does not exist") }
            let bytes: Data
            do {
                bytes = try Data(contentsOf: URL(fileURLWithPath: payload))
            } catch {
                throw ExtensionCommand.fail("cannot read the payload \(payload): \(error.localizedDescription)")
            }
            let push: PushPayload
            do {
                push = try PushPayload(json: Array(bytes))
            } catch {
                throw ExtensionCommand.fail("the payload \(payload) is not an APNs payload: \(error)")
            }
            let isSwift = path.hasSuffix(".swift") || Self.isFolder(path)
            let manifest = ServiceExtensionManifest(bundleID: "com.example.app.NotificationService", kind: isSwift ? .swift : .executable,
                                                    filtering: filtering, appGroups: appGroups, budget: budget,
                                                    executable: isSwift ? nil : [path], source: isSwift ? path : nil,
                                                    principalClass: isSwift ? swiftBuild.principalClass : nil,
                                                    modules: isSwift ? try swiftBuild.parsedModules() : [])
            if let why = manifest.reasonNotLaunched(payload: push, deviceOS: DeviceDescriptor(id: "", name: "").os) {
                Console.say("not launched: \(why)")
                return
            }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-extension-run-\(UUID().uuidString)")
            defer { if !keep { try? FileManager.default.removeItem(at: directory) } }
            var logger = Logger(label: "apnsim.extension")
            logger.logLevel = .warning
            let runtime = ServiceExtensionRuntime(directory: directory.appendingPathComponent("attachments"), logger: logger)
            if isSwift {
                if !json { Console.say("apnsim extension: building \(path)…") }
                if let failure = await runtime.prepare(manifest) { throw ExtensionCommand.fail("\(failure)") }
            }
            var app = AppManifest.signed(bundleID: "com.example.app", team: "SIMTEAM001", environment: .development, now: Date())
            app.resources = resources.map { URL(fileURLWithPath: $0).path }
            app.appGroups = appGroups
            let (shown, record) = await runtime.run(manifest, app: app, content: push.content, deliveryID: UUID().uuidString)
            await runtime.shutdown()
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                let report = Report(displayed: shown, serviceExtension: record)
                Console.say(String(decoding: try encoder.encode(report), as: UTF8.self))
            } else {
                Console.say(Self.describe(shown, record))
            }
            if keep { (json ? Console.error : Console.say)("apnsim extension: kept the run's folder: \(directory.path)") }
        }

        struct Report: Encodable {
            var displayed: NotificationContent
            var serviceExtension: ExtensionRun
        }

        static func describe(_ shown: NotificationContent, _ record: ExtensionRun) -> String {
            var lines = ["outcome     \(record.outcome.rawValue)\(record.suppressed ? " (suppressed: nothing is displayed)" : "") in \(record.durationMs) ms",
                         "why         \(record.diagnostic)"]
            for (label, value) in [("title", shown.title), ("subtitle", shown.subtitle), ("body", shown.body), ("category", shown.category)] {
                if let value { lines.append("\(label.padding(toLength: 12, withPad: " ", startingAt: 0))\(value)") }
            }
            // The device shows the buttons of the category, if the extension registered it (no app categories here).
            if let buttons = NotificationCategory.buttons(for: shown.category, in: record.registeredCategories ?? []) {
                lines.append("buttons     " + buttons.map { action in
                    let notes = action.options + (action.textInput.map { ["text input: \($0.placeholder)"] } ?? [])
                    return action.title + (notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))")
                }.joined(separator: " | "))
            }
            for attachment in shown.attachments {
                lines.append("attachment  \(attachment.identifier): \(attachment.type ?? "unknown type"), \(attachment.size) bytes, attached")
            }
            for attachment in record.refusedAttachments {
                lines.append("refused     \(attachment.identifier): \(attachment.type ?? "unknown type"), \(attachment.size) bytes, "
                             + (attachment.refusal.map { "\($0)" } ?? "refused"))
            }
            for violation in record.violations { lines.append("violation   \(violation)") }
            for line in record.log { lines.append("log         \(line)") }
            return lines.joined(separator: "\n")
        }

        static func isFolder(_ path: String) -> Bool {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
        }
    }
}

extension ExtensionCommand {
    /// Says why on standard error and ends with status 1 (not ArgumentParser's usage text: the input was well formed).
    static func fail(_ sentence: String) -> ExitCode {
        try? FileHandle.standardError.write(contentsOf: Data("apnsim extension: \(sentence)\n".utf8))
        return ExitCode.failure
    }
}

/// A duration as people read it: `3.2 s`.
struct Seconds: CustomStringConvertible {
    var duration: Duration
    init(_ duration: Duration) { self.duration = duration }
    var description: String {
        String(format: "%.1f s", duration.inSeconds)
    }
}
