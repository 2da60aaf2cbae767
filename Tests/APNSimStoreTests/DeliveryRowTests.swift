import APNSimRules
import APNSimStore
import Foundation
import Testing

@Suite("Delivery records through the database")
struct DeliveryRowTests {
    static let at = Date(timeIntervalSince1970: 1_800_000_000.25)

    static func accepted(_ id: String) -> DeliveryEvent {
        .accepted(DeliveryRecord(id: id, apnsID: "A-\(id)", device: "iphone", bundleID: "com.example.app", token: "ab",
                                 pushType: "alert", acceptedAt: at))
    }

    @Test("A receipt's content, extension run and presentation come back as the device wrote them, with every field")
    func receipt() async throws {
        let store = try SQLiteStore()
        let recorder = DeliveryRecorder(store: store)
        var content = NotificationContent(title: "Sale \"today\"", body: "é 🚀\n50% off", badge: 3, threadID: "sale")
        content.attachments = [.init(identifier: "image", type: "public.jpeg", size: 1_024, sha256: "c", url: "http://x/y.jpg")]
        content.userInfo = ["ab": .object(["att": .object(["type": .string("jpg")])]), "n": .number(1.5)]
        let run = ExtensionRun(ran: true, kind: .braze, outcome: .completed, diagnostic: "attached", durationMs: 12, log: ["done"])
        let presentation = Presentation(bundleID: "com.example.app", thread: "sale", banner: true, list: false)
        recorder.record(Self.accepted("d1"))
        recorder.record(.acknowledged(id: "d1", at: Self.at + 0.5))
        recorder.record(.receipt(id: "d1", outcome: .displayed, content: EncodedJSON(content), detail: "shown",
                                 at: Self.at + 1, extensionRun: EncodedJSON(run), presentation: EncodedJSON(presentation)))
        let record = try #require(try await recorder.deliveries(matching: DeliveryFilter()).first)
        #expect(record.outcome == .displayed)
        #expect(record.content == content)
        #expect(record.extensionRun == run)
        #expect(record.presentation == presentation)
        #expect(record.detail == "shown")
        #expect(record.acceptedAt == Self.at)
        #expect(record.deliveredAt == Self.at + 0.5)
        #expect(record.displayedAt == Self.at + 1)
        #expect(record.unreadable == nil)
    }

    @Test("A receipt part that does not read as its type is left out and named; the record and the others still read")
    func unreadable() async throws {
        let store = try SQLiteStore()
        let recorder = DeliveryRecorder(store: store)
        recorder.record(Self.accepted("bad"))
        recorder.record(.receipt(id: "bad", outcome: .displayed, content: EncodedJSON(unchecked: #"{"title":5}"#), detail: nil,
                                 at: Self.at, extensionRun: EncodedJSON(unchecked: #"{"ran":true}"#),
                                 presentation: EncodedJSON(Presentation(bundleID: "com.example.app", thread: nil, banner: true, list: true))))
        recorder.record(Self.accepted("good"))
        recorder.record(.receipt(id: "good", outcome: .displayed, content: EncodedJSON(NotificationContent(body: "B")), detail: nil, at: Self.at))
        let records = Dictionary(uniqueKeysWithValues: try await recorder.deliveries(matching: DeliveryFilter()).map { ($0.id, $0) })
        let bad = try #require(records["bad"])
        #expect(bad.content == nil && bad.extensionRun == nil)
        #expect(bad.presentation?.banner == true, "the part that reads is kept")
        #expect(bad.unreadable?.count == 2)
        #expect(bad.unreadable?.first?.contains(#"content: the device's receipt held {"title":5}"#) == true, "\(bad.unreadable ?? [])")
        #expect(bad.unreadable?.first?.contains("title is not a String") == true, "\(bad.unreadable ?? [])")
        #expect(bad.unreadable?.last?.contains("outcome is missing") == true, "\(bad.unreadable ?? [])")
        #expect(records["good"]?.content?.body == "B")
        #expect(records["good"]?.unreadable == nil)
    }
}

@Suite("A push the device forgot it answered")
struct ForgottenAnswerTests {
    @Test("Recorded dropped with the sentence when the record has no outcome; an outcome recorded before stays")
    func forgotten() async throws {
        let store = try SQLiteStore()
        let recorder = DeliveryRecorder(store: store)
        let at = DeliveryRowTests.at
        recorder.record(DeliveryRowTests.accepted("open"))
        recorder.record(DeliveryRowTests.accepted("shown"))
        recorder.record(.receipt(id: "shown", outcome: .displayed, content: nil, detail: nil, at: at + 1))
        recorder.record(.forgotten(id: "open", detail: "the device had answered it and forgot", at: at + 2))
        recorder.record(.forgotten(id: "shown", detail: "the device had answered it and forgot", at: at + 2))
        let records = Dictionary(uniqueKeysWithValues: try await recorder.deliveries(matching: DeliveryFilter()).map { ($0.id, $0) })
        #expect(records["open"]?.outcome == .dropped)
        #expect(records["open"]?.detail == "the device had answered it and forgot")
        #expect(records["open"]?.displayedAt == at + 2)
        #expect(records["shown"]?.outcome == .displayed, "answered from the record")
        #expect(records["shown"]?.detail == nil)
    }
}
