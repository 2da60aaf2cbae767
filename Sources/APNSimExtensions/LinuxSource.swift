import Foundation

/// What apnsim changes, on Linux, in the Swift files of a team's extension and its modules before it builds them, so
/// code written for Apple's systems builds unchanged (docs/own-extensions.md, "On Linux"). On Apple's systems the files
/// are built as they are.
///
/// - `@objc`, `@objc(name)` and `@objcMembers` are blanked out: they mean nothing without the Objective-C runtime, and
///   Linux's compiler refuses them ("Objective-C interoperability is disabled"). Spaces stand in for them, so every
///   line and column the compiler reports is the team's own.
/// - Every file sees apnsim's UserNotifications, which brings FoundationNetworking (`import Foundation` brings
///   `URLSession` on Apple's systems) and the Foundation behaviour Linux lacks (`mappedRead`, Apple's
///   `suggestedFilename`). Seeing FoundationNetworking directly instead would make `suggestedFilename` ambiguous.
/// - `import os.log` (a submodule, which a Swift module cannot have) becomes `import os`, apnsim's `os` module.
package enum LinuxSource {
    /// The files to hand the compiler, and the original of each (to name it again in the compiler's messages).
    static func prepare(_ files: [URL], into folder: URL) throws -> (files: [URL], originals: [String: String]) {
        #if canImport(Darwin)
        return (files, [:])
        #else
        var copies: [URL] = []
        var originals: [String: String] = [:]
        for (index, file) in files.enumerated() {
            let text = try String(contentsOf: file, encoding: .utf8)
            let copy = folder.appendingPathComponent(String(index)).appendingPathComponent(file.lastPathComponent)
            try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(withoutSubmoduleImports(withoutObjC(text)).utf8).write(to: copy)
            copies.append(copy)
            originals[copy.path] = file.path
        }
        return (copies, originals)
        #endif
    }

    /// Flags for every compile of a team's or a module's files.
    static var compilerFlags: [String] {
        #if canImport(Darwin)
        []
        #else
        ["-Xfrontend", "-import-module", "-Xfrontend", "UserNotifications"]
        #endif
    }

    /// `text` with `import os.log` (and `os.signpost`, `os.activity`) as `import os`, padded to the same length.
    package static func withoutSubmoduleImports(_ text: String) -> String {
        text.replacing(/(?m)^(\s*import\s+os)(\.[a-z]+)/) { $0.output.1 + String(repeating: " ", count: $0.output.2.count) }
    }

    /// `text` with `@objcMembers`, `@objc` and `@objc(name)` replaced by as many spaces.
    package static func withoutObjC(_ text: String) -> String {
        text.replacing(/@objcMembers\b|@objc(?:\([^)\n]*\))?(?![A-Za-z0-9_])/) { String(repeating: " ", count: $0.output.count) }
    }
}
