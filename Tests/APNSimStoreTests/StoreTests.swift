import APNSimRules
import APNSimStore
import Foundation
import Testing

@Suite("Store")
struct StoreTests {
    static func record(token: String = "a1b2", topic: String = "com.example.app", status: Int = 200,
                       at seconds: TimeInterval = 1_800_000_000) -> SendRecord {
        SendRecord(receivedAt: Date(timeIntervalSince1970: seconds), environment: "development", authMode: "token",
                   method: "POST", path: "/3/device/\(token)", token: token, topic: topic, pushType: "alert",
                   apnsID: UUID().uuidString, headers: [":method": "POST", "apns-topic": topic],
                   payload: #"{"aps":{}}"#, payloadBytes: 10, status: status,
                   reason: status == 200 ? nil : "BadDeviceToken", explanation: status == 200 ? nil : "because",
                   durationMicros: 42)
    }

    @Test("Sends come back newest first and every filter narrows them")
    func filters() async throws {
        let store = try SQLiteStore()
        let recorder = SendRecorder(store: store)
        recorder.record(Self.record(token: "aa", status: 200, at: 100))
        recorder.record(Self.record(token: "bb", topic: "com.example.other", status: 400, at: 200))
        recorder.record(Self.record(token: "aa", status: 410, at: 300))
        try await recorder.flush()

        #expect(try store.sends(matching: .init()).map(\.receivedAt.timeIntervalSince1970) == [300, 200, 100])
        #expect(try store.sends(matching: .init(token: "AA")).count == 2, "token filters ignore case")
        #expect(try store.sends(matching: .init(topic: "com.example.other")).map(\.token) == ["bb"])
        #expect(try store.sends(matching: .init(status: 410)).count == 1)
        #expect(try store.sends(matching: .init(since: Date(timeIntervalSince1970: 200))).count == 2)
        #expect(try store.sends(matching: .init(limit: 1)).map(\.status) == [410])
        #expect(try store.sendCount() == 3)

        try store.deleteAllSends()
        #expect(try store.sendCount() == 0)
    }

    @Test("A record keeps every field through the database, headers with quotes and control characters, NUL bytes, empty and absent values included")
    func roundTrip() async throws {
        let store = try SQLiteStore()
        let recorder = SendRecorder(store: store)
        var original = Self.record(status: 400)
        original.headers = RequestHeaders(original.headers.dictionary.merging([
            "x-odd": "quote \" backslash \\ tab \t bell \u{07} ünïcödé 🚀", "x-empty": "",
        ]) { $1 })
        original.payload = "{\"a\":\"nul \u{0} inside\"}"
        original.topic = ""
        original.teamID = nil
        recorder.record(original)
        try await recorder.flush()
        var empty = Self.record(at: 1_800_000_001)
        empty.payload = ""
        empty.headers = [:]
        recorder.record(empty)
        try await recorder.flush()
        let sends = try store.sends(matching: .init())
        let stored = try #require(sends.last)
        original.id = stored.id
        #expect(stored == original)
        #expect(sends.first?.payload == "", "an empty body is kept as empty, not as absent")
        #expect(sends.first?.headers == [:], "no headers (a fault's record) read back as none")
    }

    @Test("A store file keeps its sends when it is opened again")
    func fileSurvivesReopen() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-store-\(UUID().uuidString).sqlite").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let store = try SQLiteStore(path: path)
            let recorder = SendRecorder(store: store)
            recorder.record(Self.record(token: "cc"))
            try await recorder.flush()
        }
        let reopened = try SQLiteStore(path: path)
        #expect(try reopened.sends(matching: .init()).map(\.token) == ["cc"])
    }

    @Test("A store path that cannot be opened is an error, not a crash")
    func unopenablePath() {
        #expect(throws: (any Error).self) { try SQLiteStore(path: "/nonexistent-directory/apnsim.sqlite") }
    }

    @Test("The recorder writes what was queued before finish, in order")
    func recorderDrainsOnFinish() async throws {
        let store = try SQLiteStore()
        let recorder = SendRecorder(store: store)
        for second in 0..<50 { recorder.record(Self.record(at: TimeInterval(second))) }
        recorder.finish()
        await recorder.run()
        let times = try store.sends(matching: .init(limit: 100)).map(\.receivedAt.timeIntervalSince1970)
        #expect(times == (0..<50).reversed().map(TimeInterval.init))
    }

    @Test("Held pushes and registrations are kept in a store file for a restart, and not written in memory, where none comes")
    func restartStateOnlyInFiles() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-restart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let token = DeviceToken(String(repeating: "ab", count: 32))!
        let device = DeviceDescriptor(id: "d1", name: "d1")
        let delivery = Delivery(id: "p1", apnsID: "A1", token: token, bundleID: "com.example.app", pushType: .alert,
                                                  priority: 10, collapseID: nil, payload: "{}")
        for store in [try SQLiteStore(), try SQLiteStore(path: folder.appendingPathComponent("store.sqlite").path)] {
            let recorder = DeliveryRecorder(store: store)
            recorder.record(.registered(DeviceRegistration(token: token, device: device, bundleID: "com.example.app", environment: .development)))
            recorder.record(.accepted(DeliveryRecord(id: "p1", apnsID: "A1", device: "d1", bundleID: "com.example.app", token: token.hex,
                                                     pushType: "alert", acceptedAt: Date(timeIntervalSince1970: 1_800_000_000))))
            recorder.record(.held(HeldPush(id: "p1", device: "d1", slot: nil, expires: nil, delivery: delivery)))
            try await recorder.flush()
            let state = try store.deviceState()
            #expect(state.registrations.count == (store.isDurable ? 1 : 0))
            #expect(state.held.map(\.id) == (store.isDurable ? ["p1"] : []))
            #expect(try store.deliveries(matching: .init()).map(\.id) == ["p1"], "the delivery record is kept either way")
        }
    }
}

@Suite("A send record's headers")
struct RequestHeadersTests {
    @Test("Kept in the request's order, a repeated name with its first value, and read back as the same names and values")
    func firstWins() async throws {
        let headers = RequestHeaders([(name: ":method", value: "POST"), (name: "apns-topic", value: "com.example.app"),
                                      (name: "x-twice", value: "first"), (name: "x-twice", value: "second"),
                                      (name: "x-quote", value: #"a "b" \c"#)])
        #expect(headers.text == #"{":method":"POST","apns-topic":"com.example.app","x-twice":"first","x-quote":"a \"b\" \\c"}"#)
        #expect(headers.dictionary == [":method": "POST", "apns-topic": "com.example.app", "x-twice": "first", "x-quote": #"a "b" \c"#])
        #expect(headers["x-twice"] == "first")
        #expect(headers == ["x-quote": #"a "b" \c"#, "x-twice": "first", "apns-topic": "com.example.app", ":method": "POST"],
                "equal to the same headers in another order")
        let encoded = try JSONEncoder().encode(headers)
        #expect(try JSONDecoder().decode([String: String].self, from: encoded) == headers.dictionary, "encoded as the object it is")
        #expect(try JSONDecoder().decode(RequestHeaders.self, from: encoded) == headers)
    }
}
