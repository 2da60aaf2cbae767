import APNSimCore
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression

/// Downloads what an extension attaches, as an extension's URLSession would: redirects followed, 2xx only, the
/// body capped at the largest attachment iOS takes, within the time the extension has left. Saves the file
/// under the device's folder and checks it as `UNNotificationAttachment` would.
public struct AttachmentDownloader: Sendable {
    /// One more byte than a movie may have, so an oversized body is known without reading all of it.
    static let bodyLimit = AttachmentRules.Kind.movie.maximumSize + 1

    let client: HTTPClient
    /// Where attachments are saved; a temporary folder when the device keeps no data.
    let directory: URL

    /// The client every extension in the process shares, set up as an extension's URLSession behaves: up to 5
    /// redirects (no loops), gzip and deflate decoded (up to 100 times the compressed size), and a refused or
    /// unreachable server fails the download at once instead of being retried until the budget runs out.
    public static let sharedClient: HTTPClient = {
        var pool = HTTPClient.Configuration.ConnectionPool()
        pool.retryConnectionEstablishment = false
        let configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: 5, allowCycles: false),
            timeout: .init(connect: .seconds(10)),
            connectionPool: pool,
            decompression: .enabled(limit: .ratio(100)))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    public init(client: HTTPClient = AttachmentDownloader.sharedClient, directory: URL) {
        self.client = client
        self.directory = directory
    }

    /// Downloads `url`, saves it as `name.EXTENSION` and checks it; `fileExtension` picks the extension from the
    /// response's Content-Type, as each vendor's extension does in its own way. Throws a ``DownloadError`` (a
    /// sentence) when nothing could be downloaded; a file iOS would refuse comes back with its refusal.
    public func attach(_ url: String, identifier: String, name: String, timeout: Duration,
                       fileExtension: @Sendable (_ contentType: String?) -> String) async throws(DownloadError) -> NotificationContent.Attachment {
        let (bytes, contentType) = try await download(url, timeout: timeout)
        let fileExtension = fileExtension(contentType)
        let file = directory.appendingPathComponent("\(name).\(fileExtension)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(bytes).write(to: file)
        } catch {
            throw DownloadError("cannot save the attachment at \(file.path): \(error)")
        }
        return NotificationContent.Attachment(identifier: identifier,
                                              type: AttachmentRules.fileType(forExtension: fileExtension)?.uti,
                                              size: bytes.count, sha256: NotificationContent.Attachment.sha256(of: bytes), url: url,
                                              refusal: AttachmentRules.refusal(fileExtension: fileExtension, bytes: bytes))
    }

    func download(_ url: String, timeout: Duration) async throws(DownloadError) -> (bytes: [UInt8], contentType: String?) {
        let request = HTTPClientRequest(url: url)
        do {
            let response = try await client.execute(request, timeout: TimeAmount(timeout))
            guard (200..<300).contains(response.status.code) else {
                throw DownloadError("\(url) answered \(response.status.code) \(response.status.reasonPhrase)")
            }
            let body = try await response.body.collect(upTo: Self.bodyLimit)
            return (Array(body.readableBytesView), response.headers.first(name: "content-type"))
        } catch let error as DownloadError {
            throw error
        } catch let error as NIOTooManyBytesError {
            throw DownloadError("\(url) sent more than \(Self.bodyLimit - 1) bytes (\(error))")
        } catch {
            throw DownloadError("cannot download \(url): \(error)")
        }
    }
}

/// A download that failed, in a sentence naming the URL.
public struct DownloadError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
