import APNSimRules
import Foundation

extension SwiftExtensionBuilder {
    /// `modules` with each package product (`{package, product}`) replaced by the targets that make it up, each a
    /// module of its own with the Swift files SwiftPM would compile for it; the others as they are. A team names the
    /// product it added in Xcode (`KlaviyoSwiftExtension`) and the package as SwiftPM checked it out.
    ///
    /// The package's manifest is read with `swift package dump-package`, which needs no network. A target's files are
    /// the Swift files under its `path` (`Sources/NAME` by default) but its `exclude`s, or its `sources` when it
    /// lists them. Targets it depends on in the same package come first; products of other packages are the team's
    /// to name too (as another `{package, product}`).
    func expandingPackages(_ modules: [ServiceExtensionManifest.Module])
        async throws(ExtensionError) -> (modules: [ServiceExtensionManifest.Module], files: [String: [URL]]) {
        var expanded: [ServiceExtensionManifest.Module] = []
        var files: [String: [URL]] = [:]
        for module in modules {
            guard module.isPackageProduct else {
                expanded.append(module)
                continue
            }
            for target in try await targets(of: module) {
                expanded.append(.init(name: target.name, source: target.path))
                files[target.name] = target.files
            }
        }
        return (expanded, files)
    }

    private struct PackageTarget {
        var name: String
        var path: String
        var files: [URL]
    }

    /// The targets of `module`'s product, with the targets they depend on in its package, dependencies first.
    private func targets(of module: ServiceExtensionManifest.Module) async throws(ExtensionError) -> [PackageTarget] {
        let package = URL(fileURLWithPath: module.source)
        let what = "package \(module.source)"
        guard FileManager.default.fileExists(atPath: package.appendingPathComponent("Package.swift").path) else {
            throw ExtensionError("\(what) has no Package.swift; name a package's folder as SwiftPM checked it out (.build/checkouts/NAME)")
        }
        let printed = try await run([swiftTool, "package", "--package-path", package.path, "dump-package"], building: what)
        let json = printed.firstIndex(of: "{").map { String(printed[$0...]) } ?? printed
        guard let manifest = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any],
              let products = manifest["products"] as? [[String: Any]], let targets = manifest["targets"] as? [[String: Any]] else {
            throw ExtensionError("cannot read the manifest of \(what): swift package dump-package printed \(printed.prefix(200))")
        }
        guard let product = products.first(where: { $0["name"] as? String == module.name }) else {
            let names = products.compactMap { $0["name"] as? String }
            throw ExtensionError("\(what) has no product \(module.name); its products are \(names.joined(separator: ", "))")
        }
        var byName: [String: [String: Any]] = [:]
        for target in targets { if let name = target["name"] as? String, byName[name] == nil { byName[name] = target } }
        var ordered: [String] = []
        var visiting: Set<String> = []
        func visit(_ name: String) throws(ExtensionError) {
            guard !ordered.contains(name), !visiting.contains(name) else { return }
            guard let target = byName[name] else { throw ExtensionError("\(what): product \(module.name) names target \(name), which it does not declare") }
            visiting.insert(name)
            for dependency in Self.targetDependencies(of: target) where byName[dependency] != nil { try visit(dependency) }
            ordered.append(name)
        }
        for name in (product["targets"] as? [String]) ?? [] { try visit(name) }
        return try ordered.map { name throws(ExtensionError) in
            let target = byName[name] ?? [:]
            let folder = package.appendingPathComponent(target["path"] as? String ?? "Sources/\(name)")
            let excluded = ((target["exclude"] as? [String]) ?? []).map { folder.appendingPathComponent($0).standardizedFileURL.path }
            let listed = (target["sources"] as? [String])?.map { folder.appendingPathComponent($0).standardizedFileURL.path }
            let files: [URL]
            do throws(ExtensionError) {
                files = try Self.swiftFiles(in: folder.path).filter { file in
                    let path = file.standardizedFileURL.path
                    let isExcluded = excluded.contains { path == $0 || path.hasPrefix($0 + "/") }
                    let isListed = listed.map { $0.contains { path == $0 || path.hasPrefix($0 + "/") } } ?? true
                    return !isExcluded && isListed
                }
            } catch {
                throw ExtensionError("\(what), target \(name): \(error.description)")
            }
            return PackageTarget(name: name, path: folder.path, files: files)
        }
    }

    /// The names of the targets `target` depends on (`.target(name:)` and by-name dependencies; products of other
    /// packages are left out).
    private static func targetDependencies(of target: [String: Any]) -> [String] {
        ((target["dependencies"] as? [[String: Any]]) ?? []).compactMap { dependency in
            ((dependency["byName"] ?? dependency["target"]) as? [Any])?.first as? String
        }
    }
}
