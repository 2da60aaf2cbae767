import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimStore
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// `GET /v1/connections`: the provider connections the gateway refused or closed, over real TLS on loopback ports.
@Suite("Connection records", .endToEnd)
struct ConnectionRecordTests {
    /// The records the control API lists once there are `count`, as a client in any language reads them.
    static func records(_ harness: GatewayHarness, _ query: String = "", count: Int = 1) async throws -> [ConnectionRecord] {
        let answer = try await harness.control.get("/v1/connections?wait=60&count=\(count)\(query)")
        try #require(answer.status == 200, "\(answer.text)")
        return try ControlJSON.decode([ConnectionRecord].self, from: Data(answer.bytes))
    }

    @Test("A certificate of the other environment leaves a record naming BadCertificateEnvironment, the certificate and the port",
          arguments: [APNsEnvironment.development, .production])
    func wrongEnvironment(_ endpoint: APNsEnvironment) async throws {
        try await withGateway { harness in
            let client = try await harness.connect(endpoint, certificate: try harness.pki.providerCertificate(.init(environments: [endpoint.other])))
            _ = try #require(await client.goAway())
            await client.closed()
            let record = try #require(try await Self.records(harness, "&reason=BadCertificateEnvironment").first)
            #expect(record.event == .goAway)
            #expect(record.environment == endpoint.rawValue)
            #expect(record.errorCode == "NO_ERROR")
            #expect(record.lastStreamID == 0)
            #expect(record.authMode == "certificate")
            #expect(record.certificateSubject?.contains("com.example.app") == true)
            #expect(record.explanation.contains("is for \(endpoint.other)"), "\(record.explanation)")
            #expect(try await harness.sends().isEmpty, "nothing on the connection was a request")
        }
    }

    @Test("A client that does not trust the gateway's CA fails its handshake and leaves a record with its TLS alert")
    func untrustedRoot() async throws {
        try await withGateway { harness in
            // Trusting only a certificate of someone else's CA, as a provider that kept an old root does.
            let elsewhere = try harness.pki.providerCertificate(.init(foreignIssuer: true)).certificate
            var configuration = ProviderClient.Configuration(host: "127.0.0.1", port: harness.endpoints.providerPorts[.development]!,
                                                             caFile: elsewhere)
            configuration.applicationProtocols = ["h2"]
            let client = try? await ProviderClient.connect(configuration)
            #expect(client?.isActive != true, "the client refused the gateway's certificate")
            let record = try #require(try await Self.records(harness, "&event=tlsHandshakeFailed").first)
            #expect(record.tlsAlert == "unknown_ca", "\(record)")
            #expect(record.authMode == nil, "no TLS, so no authentication")
            #expect(record.explanation.contains("does not trust"))
        }
    }

    @Test("A bad certificate is recorded once for its connection; the cursor pages on from a record; a filter matches nothing else")
    func badCertificateAndPaging() async throws {
        try await withGateway { harness in
            let foreign = try await harness.connect(certificate: try harness.pki.providerCertificate(.init(foreignIssuer: true)))
            let other = try await harness.connect(.production, certificate: try harness.pki.providerCertificate(.init(environments: [.development])))
            _ = try #require(await other.goAway())
            let both = try await Self.records(harness, count: 2)
            #expect(Set(both.map(\.event)) == [.badCertificate, .goAway])
            let bad = try #require(both.first { $0.event == .badCertificate })
            #expect(bad.reason == "BadCertificate")
            #expect(bad.explanation.contains("not issued by the apnsim provider CA"), "\(bad.explanation)")
            let after = try await Self.records(harness, "&cursor=\(both[0].id)", count: 1)
            #expect(after.map(\.id) == [both[1].id])
            #expect(try await harness.control.get("/v1/connections?event=notHTTP2").body == .array([]))
            await foreign.close()
        }
    }

    @Test("A bad filter is refused with a sentence naming it", arguments: [
        ("event=goaway", "event must be one of"), ("environment=sandbox", "environment must be development or production"),
        ("after=yesterday", "after must be an RFC 3339 time"), ("count=2", "give wait too"), ("kind=x", "unknown query parameter kind"),
    ])
    func badQuery(_ query: String, _ sentence: String) async throws {
        try await withGateway { harness in
            let answer = try await harness.control.get("/v1/connections?\(query)")
            #expect(answer.status == 400)
            #expect(answer.text.contains(sentence), "\(answer.text)")
        }
    }
}
