import APNSimDevice
import APNSimGateway
import APNSimProvider
import APNSimRules
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// `GET /metrics` over the real gateway and a real device: after a known mix of sends, each counter has its exact value.
@Suite("Metrics", .endToEnd)
struct MetricsTests {
    /// One sample of the exposition: its name, labels and value.
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    /// The samples of a Prometheus text exposition (the check script reads it with Prometheus's own parser).
    static func samples(_ text: String) -> [Sample] {
        text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line -> Sample? in
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { return nil }
            let series = line[..<space]
            guard let open = series.firstIndex(of: "{") else { return Sample(name: String(series), labels: [:], value: value) }
            var labels: [String: String] = [:]
            for pair in series[series.index(after: open)..<series.index(before: series.endIndex)].split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
            }
            return Sample(name: String(series[..<open]), labels: labels, value: value)
        }
    }

    /// The sum of `name`'s samples whose labels include `labels`.
    static func value(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double {
        samples.filter { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }.map(\.value).reduce(0, +)
    }

    @Test("After three pushes accepted (one whose extension times out) and three refused for three reasons, each counter is exact")
    func knownMix() async throws {
        try await withGateway { harness in
            // The hanging extension expires after its budget and the grace: it never answers, however fast the machine.
            try await withDevice(harness, apps: [appWithExtension(.scripted)], extensionBudget: .seconds(1),
                                 configure: { $0.extensionGrace = .milliseconds(300) }) { device in
                let token = try #require(device.tokens["com.example.app"])
                let control = harness.control
                var accepted: [String] = []
                for payload in [#"{"aps":{"alert":"one"}}"#, #"{"aps":{"alert":"two"}}"#,
                                richPush(#""apnsim":{"extension":{"action":"hang","atExpiry":"nothing"}}"#)] {
                    let apnsID = UUID().uuidString
                    #expect(try await DeviceDeliveryTests.push(harness, token: token, payload: payload, apnsID: apnsID).status == 200)
                    accepted.append(apnsID)
                }
                let refusals: [(extra: [(name: String, value: String)], token: String, reason: String)] = [
                    ([], "not-hex", "BadDeviceToken"),
                    ([("apns-priority", "7")], token.hex, "BadPriority"),
                    ([("apns-expiration", "soon")], token.hex, "BadExpirationDate"),
                ]
                for refusal in refusals {
                    let client = try await harness.connect()
                    let response = try await client.send(.push(token: refusal.token, payload: #"{"aps":{"alert":"x"}}"#,
                                                               headers: harness.headers(jwt: harness.jwt(), extra: refusal.extra)))
                    await client.close()
                    #expect(response.status == 400 && response.reason == refusal.reason, "\(response)")
                }
                for apnsID in accepted {
                    #expect(try await control.deliveries("apnsId=\(apnsID)").first?["outcome"] as? String == "displayed")
                }

                let scraped = try await control.get("/metrics")
                #expect(scraped.status == 200)
                let samples = Self.samples(try #require(scraped.json as? String))
                #expect(Self.value(samples, "apnsim_sends_total", ["status": "200", "reason": "", "push_type": "alert",
                                                                   "environment": "development", "auth": "token"]) == 3)
                for refusal in refusals {
                    #expect(Self.value(samples, "apnsim_sends_total", ["status": "400", "reason": refusal.reason]) == 1, "\(refusal.reason)")
                }
                #expect(Self.value(samples, "apnsim_sends_total") == 6)
                #expect(Self.value(samples, "apnsim_deliveries_total", ["outcome": "displayed"]) == 3)
                #expect(Self.value(samples, "apnsim_deliveries_total") == 3)
                #expect(Self.value(samples, "apnsim_extension_runs_total", ["kind": "scripted", "outcome": "expired"]) == 1)
                #expect(Self.value(samples, "apnsim_extension_runs_total") == 1)
                #expect(Self.value(samples, "apnsim_extension_run_duration_seconds_count") == 1)
                #expect(Self.value(samples, "apnsim_push_display_latency_seconds_count") == 3)
                #expect(Self.value(samples, "apnsim_devices_online") == 1)
                #expect(Self.value(samples, "process_resident_memory_bytes") > 0)
                #expect(samples.allSatisfy { $0.labels["token"] == nil && $0.labels["apns_id"] == nil }, "no token or apns-id as a label")
            }
        }
    }

    @Test("Connections refused before HTTP/2 are counted by why: garbage for a TLS hello, HTTP/1.1, a handshake a hang fault holds")
    func refusedConnections() async throws {
        try await withGateway { harness in
            let port = harness.endpoints.providerPorts[.development]!
            let garbage = try await RawConnection.connect(port: port)
            try await garbage.send(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            _ = await garbage.bytesUntilClosed()
            let plain = try await RawConnection.connect(port: port, tls: (harness.pki.caFile, ["http/1.1"]))
            try await plain.send(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            _ = await plain.bytesUntilClosed()
            var hang = Fault(kind: .hang)
            hang.at = .hang(.handshake)
            try await harness.gateway.inject([hang])
            let held = try await RawConnection.connect(port: port)
            try await HangFaultTests.untilHeld(harness)  // connections are set up in any order: this one first
            try await BadInputTests.stillServes(harness)
            let samples = Self.samples(try #require(try await harness.control.get("/metrics").json as? String))
            #expect(Self.value(samples, "apnsim_provider_connections_refused_total", ["reason": "tls_error"]) == 1)
            #expect(Self.value(samples, "apnsim_provider_connections_refused_total", ["reason": "not_http2"]) == 1)
            #expect(Self.value(samples, "apnsim_provider_connections_refused_total", ["reason": "hang"]) == 1)
            #expect(Self.value(samples, "apnsim_provider_connections_refused_total") == 3)
            await held.close()
        }
    }

    @Test("A built-in extension's downloads are in its run record and counted by status, bytes and duration")
    func mediaDownloads() async throws {
        try await withMediaServer { media in
            try await withGateway { harness in
                try await withDevice(harness, dataDirectory: temporaryDirectory(), apps: [appWithExtension(.braze)]) { device in
                    let served = try await sendToExtension(richPush(#""ab":{"att":{"url":"MEDIA/media/sample.jpg","type":"jpg"}}"#),
                                                           media: media, harness: harness, device: device)
                    let missing = try await sendToExtension(richPush(#""ab":{"att":{"url":"MEDIA/media/no-such-file.jpg","type":"jpg"}}"#),
                                                            media: media, harness: harness, device: device)
                    let size = try Data(contentsOf: repositoryRoot.appendingPathComponent("Scenarios/media/sample.jpg")).count
                    let first = try #require((served.run["downloads"] as? [[String: Any]])?.first)
                    #expect(first["status"] as? Int == 200 && first["bytes"] as? Int == size && first["error"] == nil)
                    let second = try #require((missing.run["downloads"] as? [[String: Any]])?.first)
                    #expect(second["status"] as? Int == 404 && second["bytes"] as? Int == 0 && (second["error"] as? String)?.contains("404") == true)
                    let scraped = try await harness.control.get("/metrics")
                    let samples = Self.samples(try #require(scraped.json as? String))
                    #expect(Self.value(samples, "apnsim_media_downloads_total", ["status": "200"]) == 1)
                    #expect(Self.value(samples, "apnsim_media_downloads_total", ["status": "404"]) == 1)
                    #expect(Self.value(samples, "apnsim_media_download_bytes_total") == Double(size))
                    #expect(Self.value(samples, "apnsim_media_download_duration_seconds_count") == 2)
                }
            }
        }
    }

    @Test("Pushes stored for an offline device are counted, and the one a newer push replaced is counted coalesced")
    func storedAndCoalesced() async throws {
        try await withGateway { harness in
            try await withDevice(harness) { device in
                let token = try #require(device.tokens["com.example.app"])
                let control = harness.control
                #expect(try await control.post("/v1/devices/device-1/offline").status == 200)
                let older = try await ConsoleStateTests.push(harness, token)
                let newer = try await ConsoleStateTests.push(harness, token)
                #expect(try await control.post("/v1/devices/device-1/online").status == 200)
                #expect(try await ConsoleStateTests.state(control, newer) == "deliveredFromStorage")
                #expect(try await control.deliveries("apnsId=\(older)").first?["outcome"] as? String == "dropped")
                let samples = Self.samples(try #require(try await control.get("/metrics").json as? String))
                #expect(Self.value(samples, "apnsim_stored_pushes_total", ["reason": "offline"]) == 2)
                #expect(Self.value(samples, "apnsim_stored_pushes_total") == 2)
                #expect(Self.value(samples, "apnsim_pushes_coalesced_total") == 1)
                #expect(Self.value(samples, "apnsim_deliveries_total", ["outcome": "dropped"]) == 1)
                #expect(Self.value(samples, "apnsim_pushes_stored") == 0, "nothing is stored once the device is back")
            }
        }
    }

    @Test("With a control token, /metrics asks for it, as the API does")
    func behindToken() async throws {
        try await withGateway({ $0.controlToken = "s3cret" }) { harness in
            let control = harness.control
            #expect(try await control.get("/metrics").status == 401)
            let scraped = try await control.get("/metrics", headers: [("authorization", "Bearer s3cret")])
            #expect(scraped.status == 200 && (scraped.json as? String)?.contains("# TYPE") != false)
        }
    }
}
