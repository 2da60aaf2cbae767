@testable import APNSimDeviceLink
import APNSimRules
import Foundation
import Testing

@Suite("Device link framing")
struct DeviceLinkTests {
    static let token = DeviceToken(String(repeating: "ab", count: 32))!
    static let toDevice: [DeviceLinkMessage.ToDevice] = [
        .welcome(.init(heartbeatInterval: 15)),
        .registered(.init(bundleID: "com.example.app", environment: .development, token: token)),
        .push(.init(id: "P1", apnsID: "A-1", token: token, bundleID: "com.example.app", pushType: .voip, priority: 10,
                    collapseID: nil, payload: #"{"aps":{"alert":"Hi \"there\""}}"#)),
        .carry(.init(pushes: [CarriedPushTests.push(1, payload: CarriedPushTests.scorePayload),
                              CarriedPushTests.push(2, payload: CarriedPushTests.scorePayload)])),
        .install(.signed(bundleID: "com.example.app", team: "SIMTEAM001", environment: .development, now: now)),
        .uninstall(.init(bundleID: "com.example.app")),
        .foreground(.init(bundleID: "com.example.app", options: ["banner", "list"])),
        .restart(.init()),
        .focus(.init(focus: Focus(name: "Work", allowedApps: ["com.example.app"]))),
        .summary(.init(summary: ScheduledSummary(times: ["08:00"], timeZone: "Europe/Paris"))),
        .deliverSummary(.init(id: "S1")),
        .startActivity(.init(activity: activity)),
        .endActivity(.init(id: "act-1", bundleID: "com.example.app", contentState: ["status": .string("delivered")], dismissalDate: now, at: now)),
        .interact(.init(id: "I1", apnsID: "A-1", action: "reply", text: "On my way", at: now)),
        .heartbeat(.init(sequence: 7)),
        .heartbeatAck(.init(sequence: 7)),
        .error(.init(reason: "UnsupportedVersion", explanation: "speak version 1")),
    ]
    static let fromDevice: [DeviceLinkMessage.Written] = [
        .hello(.init(device: .init(id: "D1", name: "Ada's iPhone"))),
        .register(.init(bundleID: "com.example.app", environment: .development, installation: "I1")),
        .register(.init(bundleID: "com.example.app", environment: .development, installation: "I2", badge: 4)),
        .register(.init(bundleID: "com.example.app", environment: .development, installation: "I3", team: "SIMTEAM001", badge: 1,
                        pushToStartTypes: ["DeliveryAttributes"])),
        .hello(.init(device: .init(id: "D2", name: "Shared"), host: "process-1")),
        .receipt(.init(id: "P4", outcome: .liveactivity, content: nil, detail: "applied",
                       presentation: Presentation(bundleID: "com.example.app", thread: "t", banner: true, list: true), activity: activity,
                       activityChange: ActivityChange(id: "act-1", event: .update, result: .applied,
                                                      before: ["status": .string("packed")], after: ["status": .string("on the way")]))),
        .unregister(.init(token: token)),
        .ack(.init(id: "P1")),
        .receipt(.init(id: "P1", outcome: .displayed, content: NotificationContent(title: "T", body: "B", badge: 0))),
        .receipt(.init(id: "P2", outcome: .displayed, content: NotificationContent(body: "B", badge: 3),
                       badge: .init(bundleID: "com.example.app", count: 3))),
        .attachmentCopy(.init(sha256: String(repeating: "a", count: 64), uti: "public.jpeg", size: 3, offset: 0, data: "AAEC")),
        .link(.init(host: "process-1")),
        .installRefused(.init(bundleID: "com.example.app", kind: .extensionPrefix, message: "not prefixed by the app's bundle ID")),
        .receipts(.init(receipts: CarriedPushTests.broadcastReceipts(3, mixed: true))),
        .interacted(.init(id: "I1", refusal: "no notification A-9 is shown")),
        .summarized(SummaryDelivery(id: "S1", device: "D1", scheduledFor: nil, at: now, notifications: [], detail: "empty")),
        .activities(.init(bundleID: "com.example.app", activities: [activity])),
        .heartbeat(.init(sequence: 8)),
        .heartbeatAck(.init(sequence: 8)),
        .error(.init(reason: "Restarting", explanation: "the device restarts")),
    ]

    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let activity = LiveActivity(id: "act-1", bundleID: "com.example.app", attributesType: "DeliveryAttributes",
                                       attributes: ["orderID": .string("A-1")], contentState: ["status": .string("packed")],
                                       startedAt: now, pushToken: token, timestamp: now)

    @Test("The samples hold every case of each direction, each with its own type")
    func everyCase() {
        // A case added to either enum stops its `kind` compiling until its kind is added; then this fails until the
        // samples above hold one of it, so every case is framed and read back.
        #expect(Set(Self.toDevice.map(\.kind)) == Set(DeviceLinkMessage.ToDeviceKind.allCases))
        #expect(Set(Self.fromDevice.map(\.kind)) == Set(DeviceLinkMessage.FromDeviceKind.allCases))
    }

    @Test("Every message to a device survives framing, fed one byte at a time")
    func roundTripByteByByte() throws {
        var reader = DeviceLinkFraming.Reader()
        var received: [DeviceLinkMessage.ToDevice] = []
        for byte in Self.toDevice.flatMap(DeviceLinkFraming.frame) {
            reader.append([byte])
            while let message = try reader.next() { received.append(message) }
        }
        #expect(received == Self.toDevice)
    }

    @Test("Every message from a device survives framing, fed one byte at a time")
    func roundTripFromDevice() throws {
        var reader = DeviceLinkFraming.Reader()
        var received: [DeviceLinkMessage.Written] = []
        for byte in Self.fromDevice.flatMap(DeviceLinkFraming.frame) {
            reader.append([byte])
            while let message = try reader.nextWritten() { received.append(message) }
        }
        #expect(received == Self.fromDevice)
    }

    @Test("An attachment's copy goes in parts that each fit a frame, and they add up to the file")
    func attachmentCopyParts() throws {
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let sha = NotificationContent.Attachment.sha256(of: bytes)
        let messages = DeviceLinkMessage.AttachmentCopy.messages(for: bytes, sha256: sha, uti: "public.png")
        #expect(messages.count == 4)
        var joined: [UInt8] = []
        for message in messages {
            #expect(DeviceLinkFraming.frame(message).count <= DeviceLinkFraming.maximumFrameLength)
            guard case .attachmentCopy(let copy) = message else { Issue.record("not a copy: \(message)"); continue }
            #expect(copy.offset == joined.count)
            #expect(copy.size == bytes.count)
            joined += [UInt8](Data(base64Encoded: copy.data) ?? Data())
        }
        #expect(joined == bytes)
    }

    @Test("Several frames in one read come out in order; a partial frame waits")
    func batches() throws {
        let bytes = Self.toDevice.flatMap(DeviceLinkFraming.frame)
        var reader = DeviceLinkFraming.Reader()
        reader.append(bytes.dropLast(3))
        var received: [DeviceLinkMessage.ToDevice] = []
        while let message = try reader.next() { received.append(message) }
        #expect(received == Array(Self.toDevice.dropLast()))
        reader.append(bytes.suffix(3))
        #expect(try reader.next() == Self.toDevice.last)
        #expect(try reader.next() == nil)
    }

    @Test("Oversized, non-JSON and unknown frames are errors with a sentence", arguments: [
        [0x7F, 0xFF, 0xFF, 0xFF] as [UInt8],
        [0, 0, 0, 3] + Array("abc".utf8),
        [0, 0, 0, 17] + Array(#"{"type":"gossip"}"#.utf8),
        [0, 0, 0, 2] + Array("{}".utf8),
    ])
    func badFrames(_ bytes: [UInt8]) {
        var reader = DeviceLinkFraming.Reader()
        reader.append(bytes)
        #expect(throws: DeviceLinkFraming.FramingError.self) { try reader.next() }
    }

    @Test("The wire form is a JSON object with a type field, as docs/device-link.md shows")
    func wireForm() throws {
        let frame = DeviceLinkFraming.frame(DeviceLinkMessage.Written.ack(.init(id: "P1")))
        let object = try JSONSerialization.jsonObject(with: Data(frame.dropFirst(4))) as? [String: String]
        #expect(object == ["type": "ack", "id": "P1"])
        #expect(Array(frame.prefix(4)) == [0, 0, 0, UInt8(frame.count - 4)])
    }
}

extension DeviceLinkFraming.Reader {
    /// The next whole message from a device as the device wrote it (the gateway reads it as a ``DeviceLinkInbound``).
    mutating func nextWritten() throws -> DeviceLinkMessage.Written? {
        try nextBody().map { try JSONDecoder().decode(DeviceLinkMessage.Written.self, from: Data($0)) }
    }

    /// ``nextWritten()`` and the device the frame names on a shared link.
    mutating func nextAddressedWritten() throws -> (deviceID: String?, message: DeviceLinkMessage.Written)? {
        guard let body = try nextBody() else { return nil }
        return (try DeviceLinkFraming.deviceID(in: body), try JSONDecoder().decode(DeviceLinkMessage.Written.self, from: Data(body)))
    }
}

@Suite("Payloads as a device reads them")
struct PushPayloadTests {
    @Test("Alert dictionary, badge, sound, thread, category, interruption level and userInfo")
    func full() throws {
        let payload = try PushPayload(json: Array(#"""
        {"aps":{"alert":{"title":"T","subtitle":"S","body":"B"},"badge":3,"sound":"ping.caf","thread-id":"chat-1",
         "category":"REPLY","interruption-level":"time-sensitive","relevance-score":0.5,"mutable-content":1},
         "custom":{"id":42},"url":"https://example.com"}
        """#.utf8))
        #expect(payload.content.title == "T")
        #expect(payload.content.subtitle == "S")
        #expect(payload.content.body == "B")
        #expect(payload.content.badge == 3)
        #expect(payload.content.sound == "ping.caf")
        #expect(payload.content.threadID == "chat-1")
        #expect(payload.content.category == "REPLY")
        #expect(payload.content.interruptionLevel == "time-sensitive")
        #expect(payload.content.relevanceScore == 0.5)
        #expect(payload.mutableContent)
        #expect(!payload.contentAvailable)
        #expect(payload.content.userInfo["custom"] == .object(["id": .number(42)]))
        #expect(payload.content.userInfo["aps"] == nil)
    }

    @Test("A string alert is the body; badge 0 clears; a critical sound dictionary keeps its name")
    func shortForms() throws {
        let payload = try PushPayload(json: Array(#"{"aps":{"alert":"Hello","badge":0,"sound":{"critical":1,"name":"alarm.caf","volume":1.0}}}"#.utf8))
        #expect(payload.content.body == "Hello")
        #expect(payload.content.title == nil)
        #expect(payload.content.badge == 0)
        #expect(payload.content.sound == "alarm.caf")
        #expect(payload.content.hasVisibleAlert)
    }

    @Test("A background push has no visible alert")
    func background() throws {
        let payload = try PushPayload(json: Array(#"{"aps":{"content-available":1},"sync":true}"#.utf8))
        #expect(payload.contentAvailable)
        #expect(!payload.content.hasVisibleAlert)
    }

    @Test("Bad payloads are errors with a sentence", arguments: ["[]", "not json", #"{"aps":"alert"}"#])
    func bad(_ text: String) {
        #expect(throws: PushPayload.PayloadError.self) { try PushPayload(json: Array(text.utf8)) }
    }
}

@Suite("Device link framing: a stream that never pauses")
struct DeviceLinkReaderBoundTests {
    @Test("A reader fed frames that always end mid-frame reads every one and holds a bounded number of bytes")
    func bounded() throws {
        let frame = DeviceLinkFraming.frame(DeviceLinkMessage.ToDevice.heartbeat(.init(sequence: 7)))
        var reader = DeviceLinkFraming.Reader()
        var stream: [UInt8] = []
        for _ in 0..<20_000 { stream += frame }
        var read = 0, mostHeld = 0, offset = 0
        // Each read ends three bytes into a frame, as TCP segments cut a continuous stream.
        let chunk = frame.count * 5 + 3
        while offset < stream.count {
            reader.append(stream[offset..<min(offset + chunk, stream.count)])
            offset += chunk
            while try reader.next() != nil { read += 1 }
            mostHeld = max(mostHeld, reader.heldBytes)
        }
        #expect(read == 20_000)
        #expect(mostHeld <= chunk * 4, "held \(mostHeld) bytes at most; the stream was \(stream.count)")
    }
}
