import APNSimRules
import Crypto
import Foundation

/// Builds a team's own `NotificationService.swift`, written against Apple's UserNotifications, into an extension
/// process (docs/own-extensions.md): `swiftc` compiles apnsim's mirror of that API as a module named
/// `UserNotifications` (and, where Foundation lacks them, the few CoreGraphics names as `CoreGraphics`), then the
/// team's files with a `main.swift` that hands requests to its `UNNotificationServiceExtension` subclass.
///
/// Each build is kept under `cache`, named by a hash of every file that went in, so a source is built once however
/// many devices run it; a changed file builds again.
public struct SwiftExtensionBuilder: Sendable {
    /// A folder laid out as apnsim's package whose `Sources/APNSimUserNotifications` is compiled with each extension;
    /// `nil`: the mirror built into this binary (``MirrorSources``), so no checkout is needed.
    public var packageRoot: URL?
    public var cache: URL
    /// The Swift compiler: `swiftc` from `PATH` unless told otherwise.
    public var compiler: String

    public init(packageRoot: URL? = nil, cache: URL = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-extension-builds"),
                compiler: String = "swiftc") {
        self.packageRoot = packageRoot
        self.cache = cache
        self.compiler = compiler
    }

    /// What a build made: the executable, and the `UNNotificationServiceExtension` subclass it runs.
    public struct Product: Sendable, Hashable {
        public var executable: URL
        public var principalClass: String
    }

    /// Builds `source` (a Swift file, or a folder of them) unless built already, to run `principalClass` (see
    /// ``principalClass(in:source:named:)``), with the `modules` it imports each built first under its own name;
    /// throws the compiler's messages, each with its file and line, when it does not build.
    /// With `role` ``Role/appDelegate``, the process runs the app's `UNUserNotificationCenterDelegate` class instead
    /// (``delegateClass(in:source:named:)``).
    public func build(_ source: String, principalClass: String? = nil, modules: [ServiceExtensionManifest.Module] = [],
                      role: Role = .serviceExtension) async throws(ExtensionError) -> Product {
        if role == .serviceExtension,
           FileManager.default.fileExists(atPath: URL(fileURLWithPath: source).appendingPathComponent("Package.swift").path) {
            return try await buildPackage(source)
        }
        let files = try Self.swiftFiles(in: source)
        let resolved = try await expandingPackages(modules)
        let ordered = try Self.dependencyOrder(resolved.modules, files: resolved.files)
        let principal = role == .serviceExtension
            ? try Self.principalClass(in: files + ordered.flatMap(\.files), source: source, named: principalClass)
            : try Self.delegateClass(in: files, source: source, named: principalClass)
        let root: URL
        if let packageRoot { root = packageRoot } else { root = try MirrorSources.folder(in: cache) }
        let mirror = try mirrorFiles(in: root)
        let system = try systemModules(importedBy: files + ordered.flatMap(\.files), in: root)
        let key = Self.key(of: mirror.userNotifications + mirror.coreGraphics + system.flatMap(\.files) + ordered.flatMap(\.files) + files,
                           extra: role.rawValue + principal + compiler + (system.map(\.name) + ordered.map(\.module.name)).joined(separator: ","))
        let done = cache.appendingPathComponent(key)
        let product = Product(executable: done.appendingPathComponent(principal), principalClass: principal)
        if FileManager.default.isExecutableFile(atPath: product.executable.path) { return product }

        // Built in a folder of its own, then renamed into place: two devices building the same source at once
        // both succeed, and a build that fails half-way leaves nothing a later one would take for done.
        let work = cache.appendingPathComponent("\(key).building-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        do {
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            let usesUIKit = role == .appDelegate && system.contains { $0.name == "UIKit" }
            let imports = (["UserNotifications"] + (usesUIKit ? ["UIKit"] : []) + ordered.map(\.module.name)).map { "import \($0)\n" }.joined()
            let run = switch role {
            case .serviceExtension: "ServiceExtensionHost.run { \(principal)() }"
            case .appDelegate: usesUIKit ? "NotificationDelegateHost.run({ \(principal)() }, launch: { UIApplication.launch($0) })"
                                         : "NotificationDelegateHost.run { \(principal)() }"
            }
            try Data("\(imports)\(run)\n".utf8).write(to: work.appendingPathComponent("main.swift"))
        } catch {
            throw ExtensionError("cannot write the build of \(source) under \(cache.path): \(error.localizedDescription)")
        }
        let out = work.path
        let team: (files: [URL], originals: [String: String])
        let modulesToBuild: [(module: ServiceExtensionManifest.Module, files: [URL])]
        var originals: [String: String]
        do {
            team = try LinuxSource.prepare(files, into: work.appendingPathComponent("source/team"))
            originals = team.originals
            modulesToBuild = try ordered.map { module, files in
                let prepared = try LinuxSource.prepare(files, into: work.appendingPathComponent("source/\(module.name)"))
                originals.merge(prepared.originals) { first, _ in first }
                return (module, prepared.files)
            }
        } catch {
            throw ExtensionError("cannot read the extension's files to build them (\(source)): \(error.localizedDescription)")
        }
        // Each module a static library of its own, linked before the modules it imports (the last built, first).
        var linked: [String] = []
        func library(_ name: String, _ files: [URL], flags: [String] = [], building what: String) async throws(ExtensionError) {
            try await run([compiler, "-parse-as-library", "-emit-library", "-static", "-module-name", name, "-emit-module",
                           "-emit-module-path", "\(out)/\(name).swiftmodule", "-I", out, "-o", "\(out)/lib\(name).a"]
                          + flags + files.map(\.path), building: what, originals: originals)
            linked.insert("-l\(name)", at: 0)
        }
        if !mirror.coreGraphics.isEmpty { try await library("CoreGraphics", mirror.coreGraphics, building: "apnsim's CoreGraphics names") }
        try await library("UserNotifications", mirror.userNotifications, building: "apnsim's UserNotifications")
        // On Linux, apnsim's stand-ins for Apple's modules the extension imports (`os`, `UniformTypeIdentifiers`…).
        for (name, moduleFiles) in system { try await library(name, moduleFiles, building: "apnsim's \(name)") }
        // The team's modules, each as itself (`import VendorNotificationServiceExtension` works as in Xcode), in the
        // order their imports need.
        for (module, moduleFiles) in modulesToBuild {
            try await library(module.name, moduleFiles, flags: ["-swift-version", "5"] + LinuxSource.compilerFlags,
                              building: "module \(module.name) (\(module.source))")
        }
        // Swift 5 mode, as Xcode's extension templates build: code written for Apple's callbacks (captured `self`
        // in a URLSession completion handler) is accepted as Xcode accepts it.
        try await run([compiler, "-swift-version", "5", "-module-name", role.moduleName, "-I", out, "-L", out]
                      + LinuxSource.compilerFlags + linked + team.files.map(\.path) + ["\(out)/main.swift", "-o", "\(out)/\(principal)"],
                      building: source, originals: originals)
        do {
            try FileManager.default.moveItem(at: work, to: done)
        } catch where FileManager.default.isExecutableFile(atPath: product.executable.path) {
            // Another build of the same files finished first.
        } catch {
            throw ExtensionError("cannot keep the build of \(source) in \(done.path): \(error.localizedDescription)")
        }
        return product
    }

    /// A Swift package whose one executable product is the extension process (it speaks docs/extension-protocol.md,
    /// for example through `ServiceExtensionHost` of apnsim's `APNSimUserNotifications` library): built with
    /// `swift build`, which keeps its own incremental build in the package's `.build`.
    private func buildPackage(_ source: String) async throws(ExtensionError) -> Product {
        let tool = swiftTool
        let printed = try await run([tool, "package", "--package-path", source, "describe", "--type", "json"], building: source)
        // It may print progress lines (fetching, resolving) before the JSON, which starts at the first brace.
        let description = printed.firstIndex(of: "{").map { String(printed[$0...]) } ?? printed
        let executables = ((try? JSONSerialization.jsonObject(with: Data(description.utf8))) as? [String: Any])
            .flatMap { $0["products"] as? [[String: Any]] }?
            .filter { ($0["type"] as? [String: Any])?["executable"] != nil }.compactMap { $0["name"] as? String } ?? []
        guard executables.count == 1, let name = executables.first else {
            throw ExtensionError("the package \(source) has \(executables.count) executable products (\(executables.joined(separator: ", "))); an extension package has one")
        }
        try await run([tool, "build", "--package-path", source, "--product", name], building: source)
        let bin = try await run([tool, "build", "--package-path", source, "--show-bin-path"], building: source)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return Product(executable: URL(fileURLWithPath: bin).appendingPathComponent(name), principalClass: name)
    }

    /// What the built process runs.
    public enum Role: String, Sendable {
        /// A notification service extension (`ServiceExtensionHost`).
        case serviceExtension
        /// The app's `UNUserNotificationCenterDelegate` (`NotificationDelegateHost`).
        case appDelegate

        /// The module the team's files are built as: Xcode's target name for each.
        var moduleName: String {
            switch self {
            case .serviceExtension: "NotificationServiceExtension"
            case .appDelegate: "App"
            }
        }
    }

    /// The class an app process runs: the one `named` (the world file's `responses.delegate.class`), or else the one
    /// class of `files` that adopts `UNUserNotificationCenterDelegate`, in its declaration or an extension of it (as
    /// Xcode's projects write `extension AppDelegate: UNUserNotificationCenterDelegate`). Read from the source's text.
    public static func delegateClass(in files: [URL], source: String, named: String? = nil) throws(ExtensionError) -> String {
        let classes = Set(superclasses(in: files).keys)
        let pattern = /\b(?:class|extension)\s+([A-Za-z_][A-Za-z0-9_]*)\s*:\s*([^{]*)\{/
        var adopting: Set<String> = []
        for file in files {
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            for match in text.matches(of: pattern) where match.output.2.contains("UNUserNotificationCenterDelegate") {
                adopting.insert(String(match.output.1))
            }
        }
        let candidates = adopting.intersection(classes).sorted()
        if let named {
            guard classes.contains(named) else {
                throw ExtensionError("the delegate class \(named) is not a class of \(source)"
                                     + (candidates.isEmpty ? "" : "; \(candidates.joined(separator: ", ")) adopts UNUserNotificationCenterDelegate"))
            }
            return named
        }
        guard candidates.count == 1, let name = candidates.first else {
            throw ExtensionError(candidates.isEmpty
                ? "\(source) has no class that adopts UNUserNotificationCenterDelegate"
                : "\(source) has \(candidates.count) classes that adopt UNUserNotificationCenterDelegate (\(candidates.joined(separator: ", "))); name one with responses.delegate.class in the world file")
        }
        return name
    }

    /// `swift`, beside ``compiler`` when that is a path, for packages.
    var swiftTool: String {
        compiler.contains("/") ? URL(fileURLWithPath: compiler).deletingLastPathComponent().appendingPathComponent("swift").path : "swift"
    }

    /// Runs a build tool and returns what it printed; when it fails, throws its error lines
    /// (`File.swift:12:5: error: …`), or the end of what it printed when it has none.
    @discardableResult
    /// `originals` names the team's files again where the compiler saw apnsim's copies of them (``LinuxSource``).
    func run(_ command: [String], building what: String, originals: [String: String] = [:]) async throws(ExtensionError) -> String {
        let (status, output): (ChildProcess.ExitStatus, String)
        do {
            (status, output) = try await ChildProcess.run(command)
        } catch {
            // Most often a machine without a Swift toolchain: an apnsim binary copied to a server, or its slim image.
            throw ExtensionError("cannot run \(command[0]) to build \(what): \(error). Building a kind swift extension needs a Swift "
                                 + "toolchain with \(URL(fileURLWithPath: command[0]).lastPathComponent) on PATH: install one from "
                                 + "https://www.swift.org/install/ (or run apnsim in the swift image), or give the extension as an executable")
        }
        guard status != .exited(0) else { return output }
        let printed = originals.reduce(output) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
        let errors = printed.split(separator: "\n").filter { $0.contains(": error: ") }
        let shown = Array(Set(errors.map(String.init))).sorted().prefix(10)
        throw ExtensionError("\(what) does not build: " + (shown.isEmpty ? String(printed.suffix(2000)) : shown.joined(separator: "; ")))
    }

    /// The mirror's files: those compiled as `UserNotifications` and those compiled as `CoreGraphics` (none where
    /// the system has CoreGraphics).
    private func mirrorFiles(in packageRoot: URL) throws(ExtensionError) -> (userNotifications: [URL], coreGraphics: [URL]) {
        let folder = packageRoot.appendingPathComponent("Sources/APNSimUserNotifications")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else {
            throw ExtensionError("apnsim's UserNotifications sources are not at \(folder.path)")
        }
        let swift = names.filter { $0.hasSuffix(".swift") }.sorted().map { folder.appendingPathComponent($0) }
        let coreGraphics = swift.filter { $0.lastPathComponent.hasPrefix("CGRect") }
        let rules = packageRoot.appendingPathComponent("Sources/APNSimRules/Notification/AttachmentRules.swift")
        #if canImport(Darwin)
        return (swift.filter { !coreGraphics.contains($0) } + [rules], [])
        #else
        return (swift.filter { !coreGraphics.contains($0) } + [rules], coreGraphics)
        #endif
    }

    /// apnsim's stand-ins for Apple's modules that `files` import, in the order they build (`os` before `OSLog`,
    /// which brings it), from `Sources/APNSimUserNotifications/Modules`; none on Apple's systems, which have them.
    private func systemModules(importedBy files: [URL], in packageRoot: URL) throws(ExtensionError) -> [(name: String, files: [URL])] {
        #if canImport(Darwin)
        return []
        #else
        let folder = packageRoot.appendingPathComponent("Sources/APNSimUserNotifications/Modules")
        let buildOrder = ["os", "OSLog", "UniformTypeIdentifiers", "MobileCoreServices", "Security", "UIKit"]
        let brings = ["OSLog": ["os"]]
        var wanted = Set(Self.imports(in: files)).intersection(buildOrder)
        for name in wanted { wanted.formUnion(brings[name] ?? []) }
        return try buildOrder.filter(wanted.contains).map { name throws(ExtensionError) in
            let moduleFolder = folder.appendingPathComponent(name)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: moduleFolder.path) else {
                throw ExtensionError("apnsim's \(name) sources are not at \(moduleFolder.path)")
            }
            return (name, names.filter { $0.hasSuffix(".swift") }.sorted().map { moduleFolder.appendingPathComponent($0) })
        }
        #endif
    }

    /// The modules `files` import (`import os.log` counts as `os`).
    static func imports(in files: [URL]) -> [String] {
        let pattern = /(?m)^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*import\s+(?:(?:class|struct|enum|protocol|typealias|func|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)/
        return files.flatMap { file in
            ((try? String(contentsOf: file, encoding: .utf8)) ?? "").matches(of: pattern).map { String($0.output.1) }
        }
    }


    /// The Swift files of `source`: the file itself, or every `.swift` file under the folder (but a package's
    /// manifest and tests).
    static func swiftFiles(in source: String) throws(ExtensionError) -> [URL] {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: source, isDirectory: &isFolder) else {
            throw ExtensionError("the extension source \(source) does not exist")
        }
        guard isFolder.boolValue else { return [URL(fileURLWithPath: source)] }
        let root = URL(fileURLWithPath: source, isDirectory: true)
        let files = (FileManager.default.enumerator(atPath: source)?.compactMap { $0 as? String } ?? [])
            .filter { $0.hasSuffix(".swift") && $0 != "Package.swift" && !$0.hasPrefix("Tests/") && !$0.hasPrefix(".build/") }
            .sorted().map { root.appendingPathComponent($0) }
        guard !files.isEmpty else { throw ExtensionError("the extension source folder \(source) has no Swift files") }
        return files
    }

    /// The class the extension process runs, chosen as iOS chooses it: the class Info.plist's
    /// `NSExtensionPrincipalClass` names (Xcode's template: `$(PRODUCT_MODULE_NAME).NotificationService`), from the
    /// world file's `principalClass` (`named`) or else the source's own `Info.plist`; without either, the
    /// most-derived subclass of `UNNotificationServiceExtension` in the files, so a team's
    /// `class NotificationService: VendorNotificationService {}` runs, not the vendor's base. Read from the source's
    /// text, not compiled: a class whose superclass is in another module is not seen as a subclass.
    public static func principalClass(in files: [URL], source: String, named: String? = nil) throws(ExtensionError) -> String {
        let superclasses = Self.superclasses(in: files)
        let services = superclasses.keys.filter { Self.isServiceExtension($0, superclasses) }.sorted()
        let given: (name: String, from: String)?
        if let named { given = (named, "principalClass \(named)") } else { given = try Self.infoPlistPrincipalClass(of: source) }
        if let (name, from) = given {
            // `$(PRODUCT_MODULE_NAME).NotificationService`, or `Module.NotificationService`: the class is after the dot.
            let className = String(name.split(separator: ".").last ?? Substring(name))
            guard superclasses[className] != nil else {
                throw ExtensionError("\(from) names class \(className), and \(source) has no class of that name"
                                     + (services.isEmpty ? "" : "; it has \(services.joined(separator: ", "))"))
            }
            guard services.contains(className) else {
                throw ExtensionError("\(from) names class \(className), which does not subclass UNNotificationServiceExtension")
            }
            return className
        }
        // The most-derived: a subclass no other subclass extends.
        let leaves = services.filter { candidate in !services.contains { superclasses[$0] == candidate } }
        guard leaves.count == 1, let name = leaves.first else {
            throw ExtensionError(leaves.isEmpty
                ? "\(source) has no class that subclasses UNNotificationServiceExtension"
                : "\(source) has \(leaves.count) classes that could be the extension's principal class (\(leaves.joined(separator: ", "))); name one with principalClass in the world file, or with NSExtensionPrincipalClass in an Info.plist beside the source")
        }
        return name
    }

    /// `modules` with their Swift files, each after the modules it imports (as listed where imports do not decide);
    /// two that import each other, or one whose source is missing, is an error naming them.
    /// `known` gives the files of modules that do not take all of their folder's (a package's targets).
    package static func dependencyOrder(_ modules: [ServiceExtensionManifest.Module], files known: [String: [URL]] = [:])
        throws(ExtensionError) -> [(module: ServiceExtensionManifest.Module, files: [URL])] {
        var pending: [(module: ServiceExtensionManifest.Module, files: [URL], imports: Set<String>)] = []
        let names = Set(modules.map(\.name))
        for module in modules {
            let files: [URL]
            do throws(ExtensionError) {
                if let listed = known[module.name] { files = listed } else { files = try swiftFiles(in: module.source) }
            } catch {
                throw ExtensionError("module \(module.name): \(error.description)")
            }
            pending.append((module, files, Set(imports(in: files)).intersection(names).subtracting([module.name])))
        }
        var ordered: [(module: ServiceExtensionManifest.Module, files: [URL])] = []
        while !pending.isEmpty {
            let built = Set(ordered.map(\.module.name))
            guard let next = pending.firstIndex(where: { $0.imports.isSubset(of: built) }) else {
                throw ExtensionError("modules \(pending.map(\.module.name).joined(separator: ", ")) import each other; Swift modules cannot")
            }
            let (module, files, _) = pending.remove(at: next)
            ordered.append((module, files))
        }
        return ordered
    }

    /// Each class declared in `files` and the first type it inherits from (its superclass, or a protocol).
    static func superclasses(in files: [URL]) -> [String: String] {
        let pattern = /\bclass\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?:<[^>{]*>)?\s*:\s*([A-Za-z_][A-Za-z0-9_.]*)/
        var found: [String: String] = [:]
        for file in files {
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            for match in text.matches(of: pattern) {
                let inherited = String(match.output.2)
                found[String(match.output.1)] = String(inherited.split(separator: ".").last ?? Substring(inherited))
            }
        }
        return found
    }

    static func isServiceExtension(_ name: String, _ superclasses: [String: String]) -> Bool {
        var current = name
        for _ in 0..<32 {  // a chain this long is a cycle in a file that does not build anyway
            guard let parent = superclasses[current] else { return false }
            if parent == "UNNotificationServiceExtension" { return true }
            current = parent
        }
        return false
    }

    /// `NSExtension.NSExtensionPrincipalClass` of the `Info.plist` beside a source file or in a source folder, with
    /// the file's path to name it by; `nil` when there is no Info.plist or it names no class.
    static func infoPlistPrincipalClass(of source: String) throws(ExtensionError) -> (String, String)? {
        guard let (plist, path) = try teamInfoPlist(of: source),
              let name = (plist["NSExtension"] as? [String: Any])?["NSExtensionPrincipalClass"] as? String else { return nil }
        return (name, "\(path)'s NSExtensionPrincipalClass \(name)")
    }

    /// The team's `Info.plist` (beside a source file, or in a source folder) and its path; `nil` when it has none.
    static func teamInfoPlist(of source: String) throws(ExtensionError) -> ([String: Any], String)? {
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: source, isDirectory: &isFolder)
        let folder = isFolder.boolValue ? URL(fileURLWithPath: source) : URL(fileURLWithPath: source).deletingLastPathComponent()
        let path = folder.appendingPathComponent("Info.plist").path
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        do {
            return ((try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]) ?? [:], path)
        } catch {
            throw ExtensionError("\(path) is not a property list: \(error.localizedDescription)")
        }
    }

    static func key(of files: [URL], extra: String) -> String {
        var hash = SHA256()
        for file in files {
            hash.update(data: Data(file.lastPathComponent.utf8))
            hash.update(data: (try? Data(contentsOf: file)) ?? Data())
        }
        hash.update(data: Data(extra.utf8))
        return Hex.lowercase(Array(hash.finalize()).prefix(12))
    }
}
