import Foundation

/// A request as the provider client sends it: any headers (duplicates allowed), the body in chunks.
public struct ProviderRequest: Sendable {
    /// Header fields in order, pseudo-headers first; names in lower case.
    public var headers: [(name: String, value: String)]
    /// Body chunks, each sent as its own DATA frame; an empty list sends HEADERS with END_STREAM.
    public var chunks: [[UInt8]]

    public init(headers: [(name: String, value: String)], chunks: [[UInt8]] = []) {
        self.headers = headers
        self.chunks = chunks
    }

    /// A device push: `POST /3/device/<token>` with the usual pseudo-headers and `extra` headers after them.
    public static func push(token: String, payload: String?, headers extra: [(name: String, value: String)] = [],
                            method: String = "POST", authority: String = "api.sandbox.push.apple.com") -> ProviderRequest {
        var headers: [(name: String, value: String)] = [
            (":method", method), (":scheme", "https"), (":path", "/3/device/\(token)"), (":authority", authority),
        ]
        headers += extra
        return ProviderRequest(headers: headers, chunks: payload.map { [Array($0.utf8)] } ?? [])
    }
}

/// What came back on one stream, frame by frame, so tests can check Apple's framing.
public struct ProviderResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    public var frames: [Frame]
    /// The RST_STREAM code, if the server reset the stream.
    public var resetCode: UInt32?

    public enum Frame: Sendable, Hashable {
        case headers(endStream: Bool)
        case data(bytes: Int, endStream: Bool)
    }

    public subscript(name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The `reason` of an error body, if there is one.
    public var reason: String? {
        guard let range = bodyText.range(of: #""reason":""#) else { return nil }
        let rest = bodyText[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }
}

/// A GOAWAY the server sent.
public struct GoAwayFrame: Sendable, Hashable {
    public var lastStreamID: Int
    public var errorCode: UInt32
    public var debugData: String
}

extension GoAwayFrame {
    /// The `reason` of APNs' JSON debug data (`{"reason":"Shutdown"}`), if it has one.
    public var reason: String? {
        guard let data = debugData.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return object["reason"] as? String
    }
}
