import APNSimExtensions
import APNSimTestSupport
import Foundation
import Testing

/// `swift test` leaves nothing behind: the test process and every process it starts keep their temporary files in the
/// test process's own folder, which goes when it exits (Tests/APNSimTestScratch).
@Suite("The tests' temporary folder")
struct TestScratchTests {
    @Test("The temporary directory is the test process's own folder, and the processes it starts inherit it")
    func ownFolder() async throws {
        let folder = try #require(TestScratch.folder)
        #expect(URL(fileURLWithPath: folder).lastPathComponent.hasPrefix("apnsim-test-run.\(getpid())."))
        #expect(FileManager.default.temporaryDirectory.standardizedFileURL.path == URL(fileURLWithPath: folder).standardizedFileURL.path)
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue)
        let (status, output) = try await ChildProcess.run(["/bin/sh", "-c", "printf %s \"$TMPDIR\""])
        #expect(status == .exited(0))
        #expect(output == folder)
    }

    @Test("apnsim's per-user data folder is inside it, so no test writes a device's identity into the user's home")
    func dataHome() async throws {
        let folder = try #require(TestScratch.folder)
        let (status, output) = try await ChildProcess.run(["/bin/sh", "-c", "printf %s \"$APNSIM_HOME\""])
        #expect(status == .exited(0))
        #expect(output == folder + "/apnsim-home")
    }
}
