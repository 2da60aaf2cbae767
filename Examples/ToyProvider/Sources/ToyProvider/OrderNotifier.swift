import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// The app server's notifier: tells a customer their order shipped, with a photo, over APNs' provider API
/// (HTTP/2, token auth). In production it points at api.push.apple.com; in tests at a simulated world.
public struct OrderNotifier: Sendable {
    public struct Settings: Sendable {
        /// `https://api.push.apple.com` in production.
        public var baseURL: String
        /// The CA to trust instead of the system's (tests only).
        public var caFile: String?
        public var p8: String
        public var keyID: String
        public var teamID: String
        public var topic: String

        public init(baseURL: String, caFile: String? = nil, p8: String, keyID: String, teamID: String, topic: String) {
            self.baseURL = baseURL
            self.caFile = caFile
            self.p8 = p8
            self.keyID = keyID
            self.teamID = teamID
            self.topic = topic
        }
    }

    public enum Failure: Error, Equatable {
        /// APNs refused the push, with its status and reason.
        case refused(status: Int, reason: String)
    }

    private let settings: Settings
    private let client: HTTPClient

    public init(settings: Settings) throws {
        self.settings = settings
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = settings.caFile { tls.trustRoots = .file(caFile) }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic  // APNs speaks HTTP/2 only; ALPN picks it
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func shutdown() async throws {
        try await client.shutdown()
    }

    /// Sends "Order shipped" with a photo of the parcel (a Braze-style `ab.att` the app's service extension
    /// downloads); returns the `apns-id` APNs answered with.
    public func orderShipped(order: Int, photoURL: String, to deviceToken: String) async throws -> String {
        let payload = #"{"aps":{"alert":{"title":"Order #\#(order) shipped","body":"It arrives Tuesday"},"mutable-content":1,"thread-id":"orders"},"ab":{"att":{"url":"\#(photoURL)","type":"jpg"}},"order":\#(order)}"#
        var request = HTTPClientRequest(url: "\(settings.baseURL)/3/device/\(deviceToken)")
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer \(try token())")
        request.headers.add(name: "apns-topic", value: settings.topic)
        request.headers.add(name: "apns-push-type", value: "alert")
        request.body = .bytes(ByteBuffer(string: payload))
        let response = try await client.execute(request, timeout: .seconds(10))
        let body = try await response.body.collect(upTo: 1 << 16)
        guard response.status == .ok else {
            let reason = (try? JSONDecoder().decode([String: String].self, from: Data(body.readableBytesView)))?["reason"] ?? ""
            throw Failure.refused(status: Int(response.status.code), reason: reason)
        }
        return response.headers.first(name: "apns-id") ?? ""
    }

    /// The provider token: an ES256 JWT naming the key and team (Apple, "Establishing a token-based connection
    /// to APNs").
    func token(issuedAt: Date = Date()) throws -> String {
        func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let header = base64URL(Data(#"{"alg":"ES256","kid":"\#(settings.keyID)"}"#.utf8))
        let claims = base64URL(Data(#"{"iss":"\#(settings.teamID)","iat":\#(Int(issuedAt.timeIntervalSince1970))}"#.utf8))
        let key = try P256.Signing.PrivateKey(pemRepresentation: settings.p8)
        let signature = try key.signature(for: Data("\(header).\(claims)".utf8))
        return "\(header).\(claims).\(base64URL(signature.rawRepresentation))"
    }
}
