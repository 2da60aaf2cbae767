@testable import APNSimExtensions
import APNSimTestKit
import APNSimTestSupport
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The media server answers a plain `GET /media/NAME` of a file it keeps on the connection's event loop
/// (`MediaFastPath`), and everything else through its router: the two must answer alike, in order.
@Suite("Media server: the event loop's answers and the router's")
struct MediaFastPathTests {
    /// Status, header names in order, the values of all but `Date`, and the body.
    struct Answer: Equatable {
        var status: Int
        var names: [String]
        var values: [String: String]
        var body: [UInt8]
    }

    static func get(_ url: String) async throws -> Answer {
        let response = try await HTTPClient.forTests.execute(HTTPClientRequest(url: url), timeout: HangGuard.deadline)
        let body = try await response.body.collect(upTo: 1 << 20)
        var values: [String: String] = [:]
        for header in response.headers where header.name.lowercased() != "date" { values[header.name.lowercased()] = header.value }
        #expect(response.headers.first(name: "date").map { $0.hasSuffix(" GMT") && $0.count == 29 } == true,
                "Date is an IMF-fixdate: \(response.headers.first(name: "date") ?? "none")")
        return Answer(status: Int(response.status.code), names: response.headers.map { $0.name.lowercased() },
                      values: values, body: Array(body.readableBytesView))
    }

    @Test("A kept file is answered with the router's status, headers in its order and bytes, and counted alike")
    func answersAsTheRouterDoes() async throws {
        try await withMediaServer { media in
            // The first request reads the file (the router); the next ones are answered from what is kept.
            let routed = try await Self.get("\(media)/media/sample.jpg")
            let kept = try await Self.get("\(media)/media/sample.jpg")
            #expect(routed.status == 200)
            #expect(routed.names == ["content-length", "content-type", "date", "server"])
            #expect(kept == routed)
            #expect(try await Self.get("\(media)/media/sample.jpg") == routed)
            // Ones the router answers still do, with what their query asks.
            #expect(try await Self.get("\(media)/media/sample.jpg?status=203").status == 203)
            #expect(try await Self.get("\(media)/media/sample").values["content-type"] == "image/jpeg", "a name without its extension")
            #expect(try await Self.get("\(media)/media/missing.jpg").status == 404)
            let stats = try await HTTPClient.forTests.execute(HTTPClientRequest(url: "\(media)/stats"), timeout: HangGuard.deadline)
            let counts = try JSONDecoder().decode([String: Int].self, from: Data((try await stats.body.collect(upTo: 1 << 20)).readableBytesView))
            #expect(counts == ["/media/sample.jpg": 4, "/media/sample": 1, "/media/missing.jpg": 1])
        }
    }

    @Test("Pipelined requests are answered in order when the router is still answering an earlier one")
    func pipelinedInOrder() async throws {
        try await withMediaServer { media in
            _ = try await Self.get("\(media)/media/sample.jpg")  // kept from now on
            let port = try #require(Int(media.split(separator: ":").last ?? ""))
            // The router's answer is held back a little; the kept file's request comes right behind it on the same
            // connection, and the last one asks the server to close (so every answer is in before it does).
            let requests = "GET /media/sample.jpg?delay=0.2&status=203 HTTP/1.1\r\nHost: media\r\n\r\n"
                + "GET /media/sample.jpg HTTP/1.1\r\nHost: media\r\n\r\n"
                + "GET /media/missing.jpg HTTP/1.1\r\nHost: media\r\nConnection: close\r\n\r\n"
            let connection = try await RawConnection.connect(port: port, sending: Array(requests.utf8))
            let received = String(decoding: await connection.bytesUntilClosed(), as: UTF8.self)
            let statuses = received.components(separatedBy: "HTTP/1.1 ").dropFirst().map { $0.prefix(3) }
            #expect(statuses == ["203", "200", "404"], "\(received.prefix(600))")
        }
    }

    @Test("The Date header is RFC 9110's IMF-fixdate in GMT", arguments: [
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (1_795_712_709, "Thu, 26 Nov 2026 17:05:09 GMT"),
    ])
    func dateHeader(second: Int, text: String) {
        #expect(HTTPDate.text(second) == text)
    }
}
