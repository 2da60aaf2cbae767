import APNSimRules
import APNSimExtensions
import APNSimTestSupport
import Foundation
import Testing

/// Which class an extension process runs, chosen as iOS chooses it (docs/own-extensions.md): Info.plist's
/// `NSExtensionPrincipalClass`, from the world file or beside the source, else the most-derived subclass. Read from
/// the source's text, so no build is needed to check it. And the modules an extension imports, in the order their
/// imports need, with a sentence naming the module, file and line when one does not build.
@Suite("Own extensions: the principal class and modules", .endToEnd)
struct PrincipalClassTests {
    static let base = "open class VendorService: UNNotificationServiceExtension {\n    open func hook() {}\n}\n"
    static let subclass = "final class NotificationService: VendorService {\n    override func hook() {}\n}\n"

    /// A folder with `files` (name: text), and an Info.plist naming `principal` when given.
    static func source(_ files: [String: String], plist: String? = nil) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-principal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        if let plist { try Data(plist.utf8).write(to: folder.appendingPathComponent("Info.plist")) }
        return folder.path
    }

    static func plist(naming principal: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0"><dict><key>NSExtension</key><dict>
          <key>NSExtensionPointIdentifier</key><string>com.apple.usernotifications.service</string>
          <key>NSExtensionPrincipalClass</key><string>\(principal)</string>
        </dict></dict></plist>
        """
    }

    static func pick(_ source: String, named: String? = nil) throws -> String {
        try SwiftExtensionBuilder.principalClass(in: try Self.files(source), source: source, named: named)
    }

    static func files(_ source: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(atPath: source).filter { $0.hasSuffix(".swift") }.sorted()
            .map { URL(fileURLWithPath: source).appendingPathComponent($0) }
    }

    static func error(_ body: () throws -> String) -> String {
        do {
            return "picked \(try body())"
        } catch {
            return "\(error)"
        }
    }

    @Test("A one-line subclass of a vendor's base runs, not the base: the most-derived subclass")
    func mostDerived() throws {
        let source = try Self.source(["Vendor.swift": Self.base, "NotificationService.swift": Self.subclass])
        #expect(try Self.pick(source) == "NotificationService")
    }

    @Test("Info.plist's NSExtensionPrincipalClass, module prefix and all, wins over the most-derived")
    func infoPlist() throws {
        let source = try Self.source(["Vendor.swift": Self.base, "NotificationService.swift": Self.subclass],
                                     plist: Self.plist(naming: "$(PRODUCT_MODULE_NAME).VendorService"))
        #expect(try Self.pick(source) == "VendorService")
    }

    @Test("The world file's principalClass wins over Info.plist")
    func worldFile() throws {
        let source = try Self.source(["Vendor.swift": Self.base, "NotificationService.swift": Self.subclass],
                                     plist: Self.plist(naming: "VendorService"))
        #expect(try Self.pick(source, named: "NotificationService") == "NotificationService")
    }

    @Test("Bad input: two unrelated subclasses, a name with no class, a class that is no extension, a broken Info.plist")
    func badInput() throws {
        let two = try Self.source(["A.swift": "class Alpha: UNNotificationServiceExtension {}\n",
                                   "B.swift": "class Beta: UNNotificationServiceExtension {}\n"])
        #expect(Self.error { try Self.pick(two) }
                == "\(two) has 2 classes that could be the extension's principal class (Alpha, Beta); name one with principalClass in the world file, or with NSExtensionPrincipalClass in an Info.plist beside the source")
        let missing = try Self.source(["Vendor.swift": Self.base, "NotificationService.swift": Self.subclass],
                                      plist: Self.plist(naming: "$(PRODUCT_MODULE_NAME).NotificationServce"))
        #expect(Self.error { try Self.pick(missing) }
                == "\(missing)/Info.plist's NSExtensionPrincipalClass $(PRODUCT_MODULE_NAME).NotificationServce names class NotificationServce, and \(missing) has no class of that name; it has NotificationService, VendorService")
        let helper = try Self.source(["Vendor.swift": Self.base, "Helper.swift": "class Downloader: NSObject {}\n"])
        #expect(Self.error { try Self.pick(helper, named: "Downloader") }
                == "principalClass Downloader names class Downloader, which does not subclass UNNotificationServiceExtension")
        let broken = try Self.source(["Vendor.swift": Self.base], plist: "<plist><dict><key>NSExtension")
        #expect(Self.error { try Self.pick(broken) }.hasPrefix("\(broken)/Info.plist is not a property list"))
        let none = try Self.source(["Helper.swift": "class Downloader: NSObject {}\n"])
        #expect(Self.error { try Self.pick(none) } == "\(none) has no class that subclasses UNNotificationServiceExtension")
    }

    @Test("principalClass is for kind swift only")
    func manifest() throws {
        let json = #"{"bundleID":"com.example.app.NotificationService","kind":"braze","principalClass":"NotificationService"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ServiceExtensionManifest.self, from: Data(json.utf8)) }
        let swift = #"{"bundleID":"com.example.app.NotificationService","kind":"swift","source":"x","principalClass":"NotificationService"}"#
        #expect(try JSONDecoder().decode(ServiceExtensionManifest.self, from: Data(swift.utf8)).principalClass == "NotificationService")
    }

    @Test("Modules are built after the modules they import, whatever order the world file lists them in")
    func moduleOrder() throws {
        let base = try Self.source(["Base.swift": "import UserNotifications\nopen class VendorBase: UNNotificationServiceExtension {}\n"])
        let helpers = try Self.source(["Helpers.swift": "import Foundation\n@_exported import VendorBase\npublic func helper() {}\n"])
        let ui = try Self.source(["UI.swift": "import VendorHelpers\nimport struct VendorBase.Nothing\n"])
        let ordered = try SwiftExtensionBuilder.dependencyOrder([.init(name: "VendorUI", source: ui), .init(name: "VendorHelpers", source: helpers),
                                                                 .init(name: "VendorBase", source: base)])
        #expect(ordered.map(\.module.name) == ["VendorBase", "VendorHelpers", "VendorUI"])
    }

    @Test("Bad modules: two that import each other, a source that is not there, one that does not build (module, file and line)")
    func badModules() async throws {
        let a = try Self.source(["A.swift": "import ModuleB\n"])
        let b = try Self.source(["B.swift": "import ModuleA\n"])
        #expect(Self.error { try SwiftExtensionBuilder.dependencyOrder([.init(name: "ModuleA", source: a), .init(name: "ModuleB", source: b)]).description }
                == "modules ModuleA, ModuleB import each other; Swift modules cannot")
        #expect(Self.error { try SwiftExtensionBuilder.dependencyOrder([.init(name: "Vendor", source: "/nowhere/Vendor")]).description }
                == "module Vendor: the extension source /nowhere/Vendor does not exist")

        let broken = try Self.source(["Broken.swift": "import UserNotifications\n\nopen class VendorBase: UNNotificationServiceExtension {\n    func f() -> Int { \"not a number\" }\n}\n"])
        let team = try Self.source(["NotificationService.swift": "import VendorBroken\nclass NotificationService: VendorBase {}\n"])
        do {
            _ = try await SwiftExtensionBuilder().build(team, modules: [.init(name: "VendorBroken", source: broken)])
            Issue.record("a module that does not build was built")
        } catch {
            #expect(error.description.hasPrefix("module VendorBroken (\(broken)) does not build: \(broken)/Broken.swift:4:"), "\(error)")
            #expect(error.description.contains("error: cannot convert return expression of type 'String' to return type 'Int'"), "\(error)")
        }
    }

    @Test("Bad packages: a folder without Package.swift, a product it does not have (its products listed), a target that does not build")
    func badPackages() async throws {
        let team = try Self.source(["NotificationService.swift": "import KitExtension\nclass NotificationService: KitBase {}\n"])
        let notAPackage = try Self.source(["A.swift": "public let a = 1\n"])
        let package = try Self.source(["Package.swift": """
            // swift-tools-version: 5.9
            import PackageDescription
            let package = Package(name: "Kit", products: [.library(name: "KitExtension", targets: ["KitExtension"])],
                                  targets: [.target(name: "KitCore"), .target(name: "KitExtension", dependencies: ["KitCore"])])
            """])
        for folder in ["Sources/KitCore", "Sources/KitExtension"] {
            try FileManager.default.createDirectory(atPath: "\(package)/\(folder)", withIntermediateDirectories: true)
        }
        try Data("public func core() -> Int { \"nine\" }\n".utf8).write(to: URL(fileURLWithPath: "\(package)/Sources/KitCore/Core.swift"))
        try Data("import KitCore\nimport UserNotifications\nopen class KitBase: UNNotificationServiceExtension {}\n".utf8)
            .write(to: URL(fileURLWithPath: "\(package)/Sources/KitExtension/Base.swift"))
        let cases: [(ServiceExtensionManifest.Module, String)] = [
            (.init(package: notAPackage, product: "Kit"), "package \(notAPackage) has no Package.swift"),
            (.init(package: package, product: "KitUI"), "package \(package) has no product KitUI; its products are KitExtension"),
            (.init(package: package, product: "KitExtension"), "module KitCore (\(package)/Sources/KitCore) does not build: \(package)/Sources/KitCore/Core.swift:1:"),
        ]
        for (module, words) in cases {
            do {
                _ = try await SwiftExtensionBuilder().build(team, modules: [module])
                Issue.record("built with \(module)")
            } catch {
                #expect(error.description.contains(words), "\(error)")
            }
        }
    }

    #if !canImport(Darwin)
    @Test("On Linux @objc, @objc(name) and @objcMembers become spaces and import os.log imports os, so lines and columns stay the team's")
    func objcBlanked() {
        let text = "@objcMembers final class A: NSObject {\n  @objc(run:) func run() {}\n  @objc dynamic var x = 1; let objcX = 2\n}\n"
        let blanked = LinuxSource.withoutObjC(text)
        #expect(blanked == "             final class A: NSObject {\n              func run() {}\n        dynamic var x = 1; let objcX = 2\n}\n")
        #expect(blanked.count == text.count)
        #expect(LinuxSource.withoutSubmoduleImports("import Foundation\nimport os.log\n  import os.signpost\nimport OSLog\n")
                == "import Foundation\nimport os    \n  import os" + String(repeating: " ", count: ".signpost".count) + "\nimport OSLog\n")
    }
    #endif

    @Test("A build error in a file with @objc names the team's own file, line and column")
    func errorsNameTheTeamsFile() async throws {
        let team = try Self.source(["NotificationService.swift": "import UserNotifications\n\n@objc(NotificationService)\nclass NotificationService: UNNotificationServiceExtension {\n    let count: Int = \"three\"\n}\n"])
        do {
            _ = try await SwiftExtensionBuilder().build(team)
            Issue.record("a file that does not build was built")
        } catch {
            #expect(error.description.contains("\(team)/NotificationService.swift:5:22: error: cannot convert value of type 'String' to specified type 'Int'"), "\(error)")
            #expect(!error.description.contains("Objective-C"), "\(error)")
        }
    }

    @Test("Without a Swift toolchain the refusal says how to get one")
    func noCompiler() async throws {
        let team = try Self.source(["NotificationService.swift": "import UserNotifications\nclass NotificationService: UNNotificationServiceExtension {}\n"])
        let builder = SwiftExtensionBuilder(cache: URL(fileURLWithPath: try Self.source([:])), compiler: "/nonexistent/swiftc")
        do {
            _ = try await builder.build(team)
            Issue.record("built without a compiler")
        } catch {
            #expect(error.description.hasPrefix("cannot run /nonexistent/swiftc to build "), "\(error)")
            #expect(error.description.contains("needs a Swift toolchain with swiftc on PATH: install one from https://www.swift.org/install/"), "\(error)")
        }
    }

    @Test("The app's delegate: the one class adopting UNUserNotificationCenterDelegate, in its declaration or an extension; none, two, or a named class that is not there is a sentence")
    func delegateClass() throws {
        func pick(_ files: [String: String], named: String? = nil) throws -> String {
            let source = try Self.source(files)
            return try SwiftExtensionBuilder.delegateClass(in: try Self.files(source), source: source, named: named)
        }
        let app = "class AppDelegate: UIResponder, UIApplicationDelegate {}\nextension AppDelegate: UNUserNotificationCenterDelegate {\n}\n"
        #expect(try pick(["AppDelegate.swift": app]) == "AppDelegate")
        #expect(try pick(["Router.swift": "final class Router: NSObject, UNUserNotificationCenterDelegate {\n}\n"]) == "Router")
        let two = ["AppDelegate.swift": app, "Router.swift": "final class Router: NSObject, UNUserNotificationCenterDelegate {\n}\n"]
        #expect(try pick(two, named: "Router") == "Router")
        func refusal(_ files: [String: String], named: String? = nil) -> String {
            do {
                _ = try pick(files, named: named)
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        #expect(refusal(two).contains("has 2 classes that adopt UNUserNotificationCenterDelegate (AppDelegate, Router); name one with responses.delegate.class"))
        #expect(refusal(["Plain.swift": "class Plain: NSObject {}\n"]).contains("has no class that adopts UNUserNotificationCenterDelegate"))
        #expect(refusal(two, named: "Missing").contains("the delegate class Missing is not a class of"))
    }
}
