import APNSimCore
import APNSimExtensions
import Foundation
import Testing

/// Which class an extension process runs, chosen as iOS chooses it (docs/own-extensions.md): Info.plist's
/// `NSExtensionPrincipalClass`, from the world file or beside the source, else the most-derived subclass. Read from
/// the source's text, so no build is needed to check it.
@Suite("Own extensions: the principal class")
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
}
