import APNSimDevice
import APNSimProvider
import APNSimRules
import APNSimRuntime
import APNSimTestKit
import APNSimTestSupport
import APNSimTesting
import Foundation
import Testing

/// WidgetKit pushes through the real gateway and a real device over TLS: an app whose widgets and controls take pushes
/// gets a widget token and a token per control; a `widgets` push reloads its widgets within their daily budget, a
/// `controls` push reloads one control, and the delivery record says which and why not.
@Suite("Widgets and controls end to end", .endToEnd)
struct WidgetPushTests {
    static let widget = "com.example.app.score"
    static let control = "com.example.app.garage"

    static func app(dailyReloads: Int) -> AppManifest {
        var app = AppManifest.signed(bundleID: "com.example.app", team: TestWorld.team, environment: .development, now: Date())
        app.declaration.widgets = .init(kinds: [widget], dailyReloads: dailyReloads)
        app.declaration.controls = .init(kinds: [control])
        return app
    }

    /// Sends a WidgetKit push of `pushType` to `token` as Apple's articles show it; answers the response and the record.
    static func reload(_ harness: GatewayHarness, token: String, pushType: String = "widgets",
                       payload: String = #"{"aps":{"content-changed":true}}"#) async throws -> (status: Int, record: [String: Any]) {
        let client = try await harness.connect()
        defer { Task { await client.close() } }
        let apnsID = UUID().uuidString
        let response = try await client.send(.push(token: token, payload: payload,
                                                   headers: harness.headers(jwt: harness.jwt(), topic: "com.example.app.push-type.\(pushType)",
                                                                            pushType: pushType, extra: [("apns-id", apnsID)])))
        guard response.status == 200 else { return (response.status, [:]) }
        return (response.status, try #require(try await DeviceDeliveryTests.delivery(harness.control, apnsID: apnsID)))
    }

    @Test("A widgets push reloads the app's widgets until their daily budget is spent; a controls push reloads its control")
    func reloads() async throws {
        try await withGateway { harness in
            try await withDevice(harness, apps: [Self.app(dailyReloads: 2)]) { _ in
                let devices = try #require(try await harness.control.get("/v1/devices").json as? [[String: Any]])
                let app = try #require((devices.first?["apps"] as? [[String: Any]])?.first)
                let widgetToken = try #require(app["widgetToken"] as? String, "\(app)")
                let controlToken = try #require((app["controlTokens"] as? [String: String])?[Self.control], "\(app)")
                #expect(Set([widgetToken, controlToken, app["token"] as? String ?? ""]).count == 3, "each token is its own")
                let tokens = try #require(try await harness.control.get("/v1/tokens?limit=1000").json as? [[String: Any]])
                let listed = tokens.filter { [widgetToken, controlToken].contains($0["token"] as? String) }
                #expect(Set(listed.compactMap { $0["kind"] as? String }) == ["widgets", "controls"], "\(listed)")
                #expect(listed.contains { $0["controlKind"] as? String == Self.control })

                for spent in 1...2 {
                    let (status, record) = try await Self.reload(harness, token: widgetToken)
                    #expect(status == 200)
                    #expect(record["outcome"] as? String == "widget")
                    let reload = try #require(record["widgets"] as? [String: Any], "\(record)")
                    #expect(reload["result"] as? String == "reloaded" && reload["kinds"] as? [String] == [Self.widget])
                    #expect(reload["spentToday"] as? Int == spent && reload["dailyReloads"] as? Int == 2)
                }
                let (_, deferred) = try await Self.reload(harness, token: widgetToken)
                let past = try #require(deferred["widgets"] as? [String: Any], "\(deferred)")
                #expect(past["result"] as? String == "deferred", "the third reload of a day of two is deferred")
                #expect((past["reason"] as? String)?.contains("2 reloads in the last 24 hours") == true)
                #expect(deferred["consoleState"] as? String == "delivered")

                // A day later on the world's clock the budget is there again.
                harness.clock.advance(by: 86_400)
                let (_, nextDay) = try await Self.reload(harness, token: widgetToken)
                #expect((nextDay["widgets"] as? [String: Any])?["result"] as? String == "reloaded")

                let (controlStatus, controlled) = try await Self.reload(harness, token: controlToken, pushType: "controls")
                #expect(controlStatus == 200)
                let reloaded = try #require(controlled["widgets"] as? [String: Any], "\(controlled)")
                #expect(reloaded["result"] as? String == "reloaded" && reloaded["kinds"] as? [String] == [Self.control])

                let after = try #require(try await harness.control.get("/v1/devices").json as? [[String: Any]])
                let shown = try #require((after.first?["apps"] as? [[String: Any]])?.first)
                #expect(shown["widgetKinds"] as? [String] == [Self.widget])
                #expect(shown["widgetsReloadedAt"] as? String != nil, "the last reload is shown: \(shown)")
                #expect((shown["controlsReloadedAt"] as? [String: String])?[Self.control] != nil, "\(shown)")

                let (_, crossed) = try await Self.reload(harness, token: widgetToken, pushType: "controls")
                #expect((crossed["widgets"] as? [String: Any])?["result"] as? String == "refused", "a controls push to the widget token")
                let (_, bare) = try await Self.reload(harness, token: controlToken, pushType: "controls", payload: #"{"aps":{}}"#)
                #expect(((bare["widgets"] as? [String: Any])?["reason"] as? String)?.contains("content-changed") == true)
            }
        }
    }

    @Test("An app whose widgets take no pushes gets no widget token")
    func noPushHandler() async throws {
        var quiet = Self.app(dailyReloads: 40)
        quiet.declaration.widgets?.pushHandler = false
        quiet.declaration.controls = nil
        let app = quiet
        try await withGateway { harness in
            try await withDevice(harness, apps: [app]) { _ in
                let devices = try #require(try await harness.control.get("/v1/devices").json as? [[String: Any]])
                let listed = try #require((devices.first?["apps"] as? [[String: Any]])?.first)
                #expect(listed["widgetToken"] == nil && listed["controlTokens"] == nil && listed["widgetsReloadedAt"] == nil)
            }
        }
    }
}
