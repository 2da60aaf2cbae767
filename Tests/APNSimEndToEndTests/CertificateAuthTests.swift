import APNSimProvider
import APNSimRules
import APNSimStore
import APNSimTestKit
import APNSimTestSupport
import Foundation
import NIOHTTP2
import Testing

/// Certificate authentication with client certificates made in code for each edge case.
@Suite("Certificate auth", .endToEnd)
struct CertificateAuthTests {
    static func alert(topic: String? = "com.example.app", pushType: String = "alert",
                      token: String = TestWorld.devToken) -> ProviderRequest {
        var headers: [(name: String, value: String)] = [("apns-push-type", pushType)]
        if let topic { headers.append(("apns-topic", topic)) }
        return .push(token: token, payload: GatewayHarness.alert, headers: headers)
    }

    @Test("A certificate from the provider CA pushes to its topics, voip included, and is recorded as certificate auth")
    func accepted() async throws {
        try await withGateway { harness in
            let client = try await harness.connect(certificate: try harness.pki.providerCertificate(.init()))
            #expect(client.remoteSettings[.maxConcurrentStreams] == 1000, "certificate connections start with the full allowance")
            #expect(try await client.send(Self.alert()).status == 200)
            let voip = try await client.send(Self.alert(topic: "com.example.app.voip", pushType: "voip"))
            #expect(voip.status == 200, "\(voip.bodyText)")
            #expect(try await harness.sends().first?.authMode == "certificate")
            await client.close()
        }
    }

    @Test("A multi-topic certificate needs apns-topic: MissingTopic")
    func multiTopicNeedsTopic() async throws {
        try await withGateway { harness in
            let client = try await harness.connect(certificate: try harness.pki.providerCertificate(.init()))
            let response = try await client.send(Self.alert(topic: nil))
            #expect(response.status == 400)
            #expect(response.reason == "MissingTopic")
            await client.close()
        }
    }

    @Test("A single-topic certificate defaults apns-topic to its UID")
    func defaultTopic() async throws {
        try await withGateway { harness in
            let client = try await harness.connect(certificate: try harness.pki.providerCertificate(.init(topics: nil)))
            let response = try await client.send(Self.alert(topic: nil))
            #expect(response.status == 200, "\(response.bodyText)")
            #expect(try await harness.sends().first?.topic == "com.example.app")
            await client.close()
        }
    }

    @Test("A topic the certificate does not list is BadTopic")
    func badTopic() async throws {
        try await withGateway { harness in
            let client = try await harness.connect(certificate: try harness.pki.providerCertificate(.init()))
            let response = try await client.send(Self.alert(topic: "com.example.other", token: TestWorld.otherAppToken))
            #expect(response.status == 400)
            #expect(response.reason == "BadTopic")
            await client.close()
        }
    }

    /// The token is checked before the certificate's topics (docs/gateway.md, "Which answer comes first"): a topic the
    /// certificate does not list, with a token of another app, is the token's refusal.
    @Test("A topic outside the certificate with a token of another app is DeviceTokenNotForTopic: the token is checked first")
    func tokenBeforeCertificateTopic() async throws {
        try await withGateway { harness in
            let client = try await harness.connect(certificate: try harness.pki.providerCertificate(.init()))
            let response = try await client.send(Self.alert(topic: "com.example.other", token: TestWorld.devToken))
            #expect(response.status == 400)
            #expect(response.reason == "DeviceTokenNotForTopic", "\(response.bodyText)")
            await client.close()
        }
    }

    @Test("Live Activity pushes need token auth: TopicDisallowed with a certificate")
    func liveActivityNeedsToken() async throws {
        try await withGateway { harness in
            let client = try await harness.connect(certificate: try harness.pki.providerCertificate(.init()))
            let response = try await client.send(Self.alert(topic: "com.example.app.push-type.liveactivity", pushType: "liveactivity"))
            #expect(response.status == 400)
            #expect(response.reason == "TopicDisallowed")
            await client.close()
        }
    }

    @Test("Certificates not from the provider CA, expired or not yet valid are BadCertificate", arguments: [
        "foreign", "expired", "future",
    ])
    func badCertificate(_ kind: String) async throws {
        try await withGateway { harness in
            var spec = TestPKI.ProviderSpec()
            switch kind {
            case "foreign": spec.foreignIssuer = true
            case "expired": spec.validFrom = Date().addingTimeInterval(-86_400 * 400); spec.validUntil = Date().addingTimeInterval(-86_400)
            default: spec.validFrom = Date().addingTimeInterval(86_400); spec.validUntil = Date().addingTimeInterval(86_400 * 2)
            }
            let client = try await harness.connect(certificate: try harness.pki.providerCertificate(spec))
            let response = try await client.send(Self.alert())
            #expect(response.status == 403)
            #expect(response.reason == "BadCertificate")
            #expect(try await harness.sends().first?.explanation?.isEmpty == false)
            await client.close()
        }
    }

    @Test("A certificate of the other environment gets GOAWAY {\"reason\":\"BadCertificateEnvironment\"} at connect",
          arguments: [APNsEnvironment.development, .production])
    func wrongEnvironment(_ endpoint: APNsEnvironment) async throws {
        try await withGateway { harness in
            let certificate = try harness.pki.providerCertificate(.init(environments: [endpoint.other]))
            let client = try await harness.connect(endpoint, certificate: certificate)
            let goAway = try #require(await client.goAway())
            #expect(goAway.debugData == #"{"reason":"BadCertificateEnvironment"}"#)
            #expect(goAway.lastStreamID == 0)
            #expect(goAway.errorCode == 0)
            await client.closed()
            #expect(!client.isActive)
        }
    }

    @Test("A universal certificate (both environment OIDs) works on both endpoints")
    func universal() async throws {
        try await withGateway { harness in
            let certificate = try harness.pki.providerCertificate(.init(environments: [.development, .production]))
            let development = try await harness.connect(.development, certificate: certificate)
            let production = try await harness.connect(.production, certificate: certificate)
            #expect(try await development.send(Self.alert()).status == 200)
            #expect(try await production.send(Self.alert(token: TestWorld.prodToken)).status == 200)
            await development.close()
            await production.close()
        }
    }
}
