import APNSimSandbox
import Foundation
import Testing

/// Where apnsim's defaults (the development PKI, the sandbox world, its media) come from: a checkout's, else the
/// binary's own, written to its data folder.
@Suite("Development files")
struct DevelopmentFilesTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("Outside a checkout each default is the binary's copy, written to APNSIM_HOME with the checkout's layout")
    func outsideCheckout() throws {
        let (cwd, home) = (try Self.folder(), try Self.folder())
        let files = DevelopmentFiles(workingDirectory: cwd.path, environment: ["APNSIM_HOME": home.path])
        for kind in DevelopmentFiles.Kind.allCases {
            let found = try files.find(kind)
            #expect(found == .init(path: home.appendingPathComponent(kind.path).path, origin: .dataFolder))
        }
        for name in ["Certs/ca.pem", "Certs/AuthKey_SIMKEY0001.p8", "Certs/device.pem", "Scenarios/sandbox.yaml", "Scenarios/media/sample.jpg"] {
            #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent(name).path), "\(name)")
        }
        // The copies are the checkout's files, byte for byte.
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for name in ["Certs/ca.pem", "Scenarios/sandbox.yaml"] {
            #expect(FileManager.default.contents(atPath: home.appendingPathComponent(name).path)
                    == FileManager.default.contents(atPath: checkout.appendingPathComponent(name).path), "\(name)")
        }
        let permissions = try FileManager.default.attributesOfItem(atPath: home.appendingPathComponent("Certs/AuthKey_SIMKEY0001.p8").path)[.posixPermissions] as? Int
        #expect(permissions == 0o600, "a private key is its owner's alone")
        #expect(try files.writeBuiltIn().isEmpty, "nothing is written twice")
    }

    @Test("A file already in the data folder is kept: providers trust that CA, and a user may have edited the world")
    func keepsWhatIsThere() throws {
        let (cwd, home) = (try Self.folder(), try Self.folder())
        let world = home.appendingPathComponent("Scenarios/sandbox.yaml")
        try FileManager.default.createDirectory(at: world.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("teams: []\n".utf8).write(to: world)
        let written = try DevelopmentFiles(workingDirectory: cwd.path, environment: ["APNSIM_HOME": home.path]).writeBuiltIn()
        #expect(!written.contains(world.path))
        #expect(written.contains(home.appendingPathComponent("Certs/ca.pem").path))
        #expect(try String(contentsOf: world, encoding: .utf8) == "teams: []\n")
    }

    @Test("In a checkout each default is the checkout's, by its relative path, and nothing is written")
    func inCheckout() throws {
        let (cwd, home) = (try Self.folder(), try Self.folder())
        for name in ["Certs/ca.pem", "Scenarios/sandbox.yaml", "Scenarios/media/sample.jpg"] {
            let file = cwd.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data().write(to: file)
        }
        let files = DevelopmentFiles(workingDirectory: cwd.path, environment: ["APNSIM_HOME": home.path])
        for kind in DevelopmentFiles.Kind.allCases {
            #expect(try files.find(kind) == .init(path: kind.path, origin: .checkout))
        }
        #expect(try files.find(.certs, given: "/etc/pki") == .init(path: "/etc/pki", origin: .given), "a path given wins")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).isEmpty)
    }

    @Test("A data folder that cannot be written is one sentence naming it and what to do")
    func unwritable() throws {
        let cwd = try Self.folder()
        let blocked = cwd.appendingPathComponent("file")
        try Data().write(to: blocked)
        let files = DevelopmentFiles(workingDirectory: cwd.path, environment: ["APNSIM_HOME": blocked.path])
        let error = try #require(throws: DevelopmentFiles.WriteError.self) { try files.find(.certs) }
        #expect(error.description.hasPrefix("apnsim cannot write its development files to \(blocked.path)"), "\(error)")
        #expect(error.description.contains("set APNSIM_HOME to a folder this user can write, or give --certs and --world"), "\(error)")
    }

    @Test("The data folder: APNSIM_HOME, else XDG_DATA_HOME/apnsim, else ~/.local/share/apnsim (Linux)")
    func dataHome() {
        #expect(DataHome.folder(environment: ["APNSIM_HOME": "/srv/apnsim", "HOME": "/home/u"]).path == "/srv/apnsim")
        #if !canImport(Darwin)
        #expect(DataHome.folder(environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/u"]).path == "/data/apnsim")
        #expect(DataHome.folder(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/u"]).path == "/home/u/.local/share/apnsim",
                "a relative XDG_DATA_HOME is ignored, as the specification says")
        #expect(DataHome.folder(environment: ["HOME": "/home/u"]).path == "/home/u/.local/share/apnsim")
        #endif
        #expect(DataHome.device("dev-../x", environment: ["APNSIM_HOME": "/h"]).path == "/h/devices/dev-.._x",
                "a device ID cannot leave the folder")
        #expect(DataHome.device("..", environment: ["APNSIM_HOME": "/h"]).path == "/h/devices/_..")
    }
}
