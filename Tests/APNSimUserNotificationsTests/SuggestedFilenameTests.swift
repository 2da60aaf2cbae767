#if canImport(FoundationNetworking)
@testable import APNSimUserNotifications
import Foundation
import Testing

/// `URLResponse.suggestedFilename` as Apple documents it, where Linux's Foundation answers "Unknown" (FoundationOnLinux.swift).
@Suite("suggestedFilename")
struct SuggestedFilenameTests {
    func response(_ address: String, _ headers: [String: String]) -> URLResponse {
        HTTPURLResponse(url: URL(string: address)!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    @Test("The name is Content-Disposition's, else the URL's last path component, else its host, else unknown",
          arguments: [
              ("https://cdn.example.com/img/photo.jpg", [:], "photo.jpg"),
              ("https://cdn.example.com/img/photo.jpg", ["Content-Disposition": "attachment; filename=\"sale.png\""], "sale.png"),
              ("https://cdn.example.com/img/photo.jpg", ["Content-Disposition": "inline; filename=sale.png"], "sale.png"),
              ("https://cdn.example.com/x", ["Content-Disposition": "attachment; filename=\"a.png\"; filename*=UTF-8''%C3%A9t%C3%A9.png"], "été.png"),
              ("https://cdn.example.com/x.gif", ["Content-Disposition": "attachment; filename=\"../../etc/passwd.png\""], "passwd.png"),
              ("https://cdn.example.com/x.gif", ["Content-Disposition": "attachment"], "x.gif"),
              ("https://cdn.example.com/abc123", ["Content-Type": "image/jpeg"], "abc123.jpg"),
              ("https://cdn.example.com/abc123", ["Content-Type": "video/mp4; codecs=avc1"], "abc123.mp4"),
              ("https://cdn.example.com/abc123", ["Content-Type": "application/octet-stream"], "abc123"),
              ("https://cdn.example.com/", ["Content-Type": "image/png"], "cdn.example.com"),
          ] as [(String, [String: String], String)])
    func name(address: String, headers: [String: String], expected: String) {
        #expect(response(address, headers).suggestedFilename == expected)
    }
}
#endif
