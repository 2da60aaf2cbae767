import APNSimRules
import Foundation

/// What the inbox's composer sends with (`POST /v1/compose`, docs/inbox.md). The control API turns a device and an
/// app into a token, a topic and an environment; ``send`` then sends the push *through the provider API*, signed
/// like any provider's request, so it meets every rule a provider's push meets. Whoever starts the gateway with a
/// provider key supplies one (the sandbox does); without it the composer says it is off.
public struct InboxComposer: Sendable {
    /// One push for the provider API.
    public struct Push: Sendable {
        public var environment: APNsEnvironment
        /// The provider API's port for that environment.
        public var port: Int
        public var token: String
        /// The app's team, so the push is signed with one of its keys.
        public var team: String?
        /// `apns-*` headers, `apns-topic` included.
        public var headers: [(name: String, value: String)]
        public var payload: String
    }

    /// The provider API's answer.
    public struct Answer: Sendable {
        public var status: Int
        public var apnsID: String?
        public var reason: String?
        public init(status: Int, apnsID: String?, reason: String?) {
            self.status = status
            self.apnsID = apnsID
            self.reason = reason
        }
    }

    /// The media server pushes may point at: its base URL (`http://127.0.0.1:8199`) and its fixture names.
    public struct Media: Sendable, Encodable {
        public var url: String
        public var fixtures: [String]
        public init(url: String, fixtures: [String]) {
            self.url = url
            self.fixtures = fixtures
        }
    }

    public var send: @Sendable (Push) async throws -> Answer
    /// The media server, once it runs; `nil` when there is none.
    public var media: @Sendable () -> Media?

    public init(send: @escaping @Sendable (Push) async throws -> Answer, media: @escaping @Sendable () -> Media? = { nil }) {
        self.send = send
        self.media = media
    }
}
