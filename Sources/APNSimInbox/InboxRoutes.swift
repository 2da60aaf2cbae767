import APNSimGateway
import Foundation
import Hummingbird
import NIOCore

/// The page: `GET /` serves one that shows every simulated device the way its screen would, live (docs/inbox.md),
/// from files built into the binary, so it works offline and wherever apnsim is copied; it follows the control API's `GET /v1/events`.
extension Inbox {
    /// The content type of each kind of file the page is made of; the files are whatever the resources folder holds.
    static let inboxTypes = ["html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
                             "js": "text/javascript; charset=utf-8"]

    func addPageRoutes(to router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in Self.inboxFile("index.html") }
        router.get("inbox/:file") { _, context in Self.inboxFile(context.parameters.get("file") ?? "") }
        router.get("v1/attachments/:sha256") { request, context in
            try await self.attachmentCopy(context.parameters.get("sha256") ?? "", request: request, context: context)
        }
    }

    /// `GET /v1/attachments/{sha256}`: the device's own copy of an attachment it shows, with the type's MIME type,
    /// streamed from disk; a `Range: bytes=` request (a video player seeking) gets 206 and that part.
    private func attachmentCopy(_ sha256: String, request: Request, context: BasicRequestContext) async throws -> Response {
        guard let (url, mime, size) = copies.file(sha256) else {
            return ControlJSON.error("no device has sent a copy of attachment \(sha256.prefix(80)); the inbox shows it from its source URL",
                                     status: .notFound)
        }
        var headers: HTTPFields = [.contentType: mime, .cacheControl: "max-age=31536000, immutable", .acceptRanges: "bytes"]
        if let range = request.headers[.range].flatMap({ Self.byteRange($0, size: size) }) {
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            headers[.contentLength] = String(range.count)
            return Response(status: .partialContent, headers: headers,
                            body: try await FileIO().loadFile(path: url.path, range: range, context: context))
        }
        headers[.contentLength] = String(size)
        return Response(status: .ok, headers: headers, body: try await FileIO().loadFile(path: url.path, context: context))
    }

    /// `bytes=START-END`, `bytes=START-` or `bytes=-LAST` within a file of `size` bytes; anything else (several
    /// ranges, a range past the end) is answered with the whole file, as RFC 9110 allows.
    static func byteRange(_ header: String, size: Int) -> ClosedRange<Int>? {
        guard header.hasPrefix("bytes="), size > 0 else { return nil }
        let spec = header.dropFirst(6)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
        let (first, last) = (spec[..<dash], spec[spec.index(after: dash)...])
        if first.isEmpty {
            guard let count = Int(last), count > 0 else { return nil }
            return max(0, size - count)...(size - 1)
        }
        guard let start = Int(first), start < size else { return nil }
        let end = last.isEmpty ? size - 1 : min(Int(last) ?? -1, size - 1)
        return end >= start ? start...end : nil
    }

    private static func inboxFile(_ name: String) -> Response {
        guard let type = inboxTypes[(name as NSString).pathExtension], let data = pageFiles[name] else {
            return ControlJSON.error("there is no inbox file \(name)", status: .notFound)
        }
        return Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The page's files by name, as they were built into the binary (the EmbedFiles plugin): an apnsim copied alone,
    /// with no checkout or resource bundle beside it, serves the page.
    static let pageFiles: [String: Data] = Dictionary(uniqueKeysWithValues: EmbeddedInbox.files.compactMap { file in
        Data(base64Encoded: file.base64).map { ((file.path as NSString).lastPathComponent, $0) }
    })
}
