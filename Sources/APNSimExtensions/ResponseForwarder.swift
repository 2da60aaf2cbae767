import APNSimRules
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Sends an app's response to a notification, as JSON, to the URL its world file names (`responses.forward`): the
/// team's backend or a test double sees what the app would send it. Sent again after a connection error or a 5xx, up
/// to ``Forwarded/attemptsAllowed`` times, a second apart and more; the interaction record keeps the last answer.
public enum ResponseForwarder {
    /// The request's body: `{"interaction": RECORD, "userInfo": {…}}`, the notification's payload keys beside the record.
    struct Body: Encodable {
        var interaction: InteractionRecord
        var userInfo: [String: JSONValue]
    }

    /// POSTs `record` and the notification's `userInfo` to `url`; what came of it.
    public static func forward(_ record: InteractionRecord, userInfo: [String: JSONValue], to url: String,
                               client: HTTPClient = AttachmentDownloader.sharedClient) async -> Forwarded {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        guard let body = try? encoder.encode(Body(interaction: record, userInfo: userInfo)) else {
            return Forwarded(url: url, attempts: 0, error: "the response could not be written as JSON")
        }
        var forwarded = Forwarded(url: url, attempts: 0)
        for attempt in 1...Forwarded.attemptsAllowed {
            forwarded.attempts = attempt
            do {
                var request = HTTPClientRequest(url: url)
                request.method = .POST
                request.headers.add(name: "content-type", value: "application/json")
                request.headers.add(name: "user-agent", value: "apnsim (\(record.bundleID))")
                request.body = .bytes(ByteBuffer(bytes: body))
                let response = try await client.execute(request, timeout: .seconds(10))
                let answer = try await response.body.collect(upTo: 1 << 20)
                forwarded.status = Int(response.status.code)
                forwarded.answer = String(decoding: answer.readableBytesView.prefix(1024), as: UTF8.self)
                forwarded.error = nil
                guard response.status.code >= 500 else { return forwarded }
            } catch {
                forwarded.status = nil
                forwarded.error = "\(error)"
            }
            guard attempt < Forwarded.attemptsAllowed else { break }
            try? await Task.sleep(for: .seconds(attempt))
        }
        return forwarded
    }
}
