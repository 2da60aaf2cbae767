import APNSimTestKit
import APNSimTestSupport
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The media server keeps the files it serves in memory (`MediaFiles`), so each request must still serve the file as
/// it is now: edited in place, replaced by another of the same size, or gone.
@Suite("Media server: files changed while it runs")
struct MediaServerFileTests {
    @Test("A fixture edited, replaced or removed while the server runs is served as it is now")
    func servesTheFileAsItIsNow() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-media-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("banner.png")
        try Data("first".utf8).write(to: file)
        try await withMediaServer(directory: folder) { media in
            func get() async throws -> (Int, String) {
                let response = try await HTTPClient.forTests.execute(HTTPClientRequest(url: "\(media)/media/banner.png"), timeout: HangGuard.deadline)
                let body = try await response.body.collect(upTo: 1 << 20)
                return (Int(response.status.code), String(buffer: body))
            }
            #expect(try await get() == (200, "first"))
            #expect(try await get() == (200, "first"), "served again from memory")
            // The same size, written in place: only its modification time says it changed.
            let handle = try FileHandle(forWritingTo: file)
            try handle.write(contentsOf: Data("fresh".utf8))
            try handle.close()
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: file.path)
            #expect(try await get() == (200, "fresh"))
            // Another file moved in under the same name: another inode.
            let other = folder.appendingPathComponent("other.tmp")
            try Data("third".utf8).write(to: other)
            try FileManager.default.removeItem(at: file)
            try FileManager.default.moveItem(at: other, to: file)
            #expect(try await get() == (200, "third"))
            try Data("a longer banner".utf8).write(to: file)
            #expect(try await get() == (200, "a longer banner"))
            try FileManager.default.removeItem(at: file)
            #expect(try await get().0 == 404)
        }
    }
}
