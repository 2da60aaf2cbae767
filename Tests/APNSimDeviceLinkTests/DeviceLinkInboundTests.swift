import APNSimDeviceLink
import APNSimRules
import Foundation
import Testing

/// The device link's hand-written paths: `push` and `ack` frames written by ``JSONWriter``, `push` frames read by
/// hand on a device, and `ack` and `receipt` frames read by ``DeviceLinkInbound``. Each is held to what `Codable`
/// writes and reads.
@Suite("Device link: the messages of every push, by hand")
struct DeviceLinkInboundTests {
    static let token = DeviceToken(String(repeating: "ab", count: 32))!

    /// Text that needs escaping in every way JSON has, and some that does not.
    static let awkward = [
        "", "plain", #"quote " and backslash \ and slash /"#, "tab\tnewline\nreturn\rbell\u{7}nul\u{0}", "é 🚀 中文",
        #"{"aps":{"alert":"Hi \"there\""}}"#, "\u{1F}\u{7F}\u{2028}",
    ]

    /// A frame from a device, read by `Codable`.
    static func decoded(_ frame: [UInt8]) throws -> DeviceLinkMessage.Written {
        try JSONDecoder().decode(DeviceLinkMessage.Written.self, from: Data(frame.dropFirst(4)))
    }

    /// A frame to a device, read by `Codable`.
    static func decodedToDevice(_ frame: [UInt8]) throws -> DeviceLinkMessage.ToDevice {
        try JSONDecoder().decode(DeviceLinkMessage.ToDevice.self, from: Data(frame.dropFirst(4)))
    }

    /// Each of the frames `bytes` holds, read by `Codable`.
    static func decodedFrames(_ bytes: [UInt8]) throws -> [DeviceLinkMessage.Written] {
        var messages: [DeviceLinkMessage.Written] = []
        var rest = bytes[...]
        while rest.count >= 4 {
            let length = rest.prefix(4).reduce(0) { $0 << 8 | Int($1) }
            messages.append(try JSONDecoder().decode(DeviceLinkMessage.Written.self, from: Data(rest.dropFirst(4).prefix(length))))
            rest = rest.dropFirst(4 + length)
        }
        return messages
    }

    @Test("A push written by hand reads through Codable as the same push, whatever its strings hold")
    func pushFrames() throws {
        var random = SplitMix(seed: 0xD1CE)
        var deliveries: [DeviceLinkMessage.Delivery] = []
        for text in Self.awkward {
            deliveries.append(.init(id: text, apnsID: "A-1", token: Self.token, bundleID: "com.example.app", pushType: .alert,
                                    priority: 10, collapseID: text, payload: text))
        }
        for index in 0..<500 {
            let text = String(decoding: (0..<Int(random.next() % 40)).map { _ in UInt8(truncatingIfNeeded: random.next()) },
                              as: UTF8.self)  // any bytes, made valid UTF-8 (U+FFFD where they were not)
            deliveries.append(.init(id: "d-\(index)", apnsID: text, token: Self.token, bundleID: text,
                                    pushType: PushType.all[index % PushType.all.count], priority: index % 2 == 0 ? 10 : 5,
                                    collapseID: index % 3 == 0 ? nil : text, payload: text))
        }
        var reader = DeviceLinkFraming.Reader()
        for delivery in deliveries {
            let frame = DeviceLinkFraming.frame(.push(delivery))
            #expect(try Self.decodedToDevice(frame) == .push(delivery), "Codable reads what the gateway writes")
            reader.append(frame)
            #expect(try reader.next() == .push(delivery), "a device reads it by hand the same")
        }
    }

    @Test("On a shared link, a push, an ack and a receipt name their device first, and read back with it as they were")
    func addressedFrames() throws {
        let delivery = DeviceLinkMessage.Delivery(id: "P1", apnsID: "A-1", token: Self.token, bundleID: "com.example.app", pushType: .alert,
                                                  priority: 10, collapseID: nil, payload: #"{"aps":{"alert":"hi"}}"#)
        let device = #"bench "7" é"#
        let push = DeviceLinkFraming.frame(DeviceLinkMessage.ToDevice.push(delivery), deviceID: device)
        #expect(Array(push.dropFirst(4).prefix(12)) == Array(#"{"deviceID":"#.utf8), "the device's name is the first member")
        var reader = DeviceLinkFraming.Reader()
        reader.append(push)
        let read = try #require(try reader.nextAddressed())
        #expect(read.deviceID == device && read.message == .push(delivery))
        let answers: [DeviceLinkMessage.Written] = [.ack(.init(id: "P1", pending: true)), .receipt(Self.fullReceipt)]
        for message in answers {
            let frame = DeviceLinkFraming.frame(message, deviceID: device)
            #expect(Array(frame.dropFirst(4).prefix(12)) == Array(#"{"deviceID":"#.utf8), "the device's name is the first member")
            var reader = DeviceLinkFraming.Reader()
            reader.append(frame)
            let read = try #require(try reader.nextAddressedWritten())
            #expect(read.deviceID == device && read.message == message)
            var gateway = DeviceLinkFraming.Reader()
            gateway.append(frame)
            #expect(try gateway.nextAddressedInbound()?.deviceID == device)
        }
    }

    @Test("An ack written by hand reads through Codable as the same ack", arguments: [
        DeviceLinkMessage.Ack(id: "P1"), .init(id: "P2", pending: true), .init(id: "P3", pending: false), .init(id: #"odd "id" \"#),
    ])
    func ackFrames(_ ack: DeviceLinkMessage.Ack) throws {
        #expect(try Self.decoded(DeviceLinkFraming.frame(.ack(ack))) == .ack(ack))
    }

    static let fullReceipt: DeviceLinkMessage.Receipt = {
        var content = NotificationContent(title: "Sale \"today\"", subtitle: "é 🚀", body: "50%\noff", badge: 3, sound: "default",
                                          threadID: "sale", category: "OFFER")
        content.interruptionLevel = "time-sensitive"
        content.relevanceScore = 0.5
        content.attachments = [.init(identifier: "image", type: "public.jpeg", size: 1_024, sha256: String(repeating: "c", count: 64),
                                     url: "http://127.0.0.1/media/sample.jpg")]
        content.userInfo = ["ab": .object(["att": .object(["url": .string("http://x/y.jpg"), "type": .string("jpg")])]),
                            "n": .number(1.5), "flags": .array([.bool(true), .null])]
        content.actions = [.init(identifier: "open", title: "Open", options: ["foreground"])]
        var run = ExtensionRun(ran: true, kind: .braze, outcome: .completed, diagnostic: "attached 1 of 1", durationMs: 12,
                               launched: true, log: ["downloading \"sample.jpg\"", "done"],
                               refusedAttachments: [.init(identifier: "big", type: "public.mpeg-4", size: 60_000_000, sha256: "d",
                                                          refusal: .init(code: .invalidFileSize, message: "too big"))])
        run.registeredCategories = [NotificationCategory(identifier: "OFFER", actions: [.init(identifier: "open", title: "Open")])]
        run.downloads = [MediaDownload(url: "http://127.0.0.1/media/sample.jpg", status: 200, bytes: 1_024, durationMs: 3),
                         MediaDownload(url: "http://x/\"gone\".jpg", status: nil, bytes: 0, durationMs: 41, error: "refused: é")]
        var presentation = Presentation(bundleID: "com.example.app", thread: "sale", banner: true, list: false)
        presentation.summary = "2026-11-27T08:00:00Z"
        return .init(id: "P1", outcome: .displayed, content: content, detail: nil, extensionRun: run,
                     badge: .init(bundleID: "com.example.app", count: 3), presentation: presentation)
    }()

    @Test("A receipt's content, presentation and extension run are written by hand as JSONEncoder writes them: the same members and values")
    func receiptPartsAsCodable() throws {
        let bare = DeviceLinkMessage.Receipt(id: "P3", outcome: .displayed, content: NotificationContent(),
                                             extensionRun: ExtensionRun(ran: false, kind: nil, outcome: .notLaunched, diagnostic: "no mutable-content"),
                                             presentation: Presentation(bundleID: "b", thread: nil, banner: false, list: true))
        for receipt in [Self.fullReceipt, bare] {
            let frame = DeviceLinkFraming.frame(.receipt(receipt))
            let parts: [(key: String, codable: Data)] = [("content", try JSONEncoder().encode(receipt.content)),
                                                          ("extension", try JSONEncoder().encode(receipt.extensionRun)),
                                                          ("presentation", try JSONEncoder().encode(receipt.presentation))]
            try frame.dropFirst(4).withUnsafeBytes { body in
                let members = try #require(JSONObjectSyntax.members(body))
                for part in parts {
                    let written = try #require(members.first { $0.key == part.key }, "\(part.key) is written")
                    let byHand = UnsafeRawBufferPointer(rebasing: body[written.value])
                    try part.codable.withUnsafeBytes { codable in
                        #expect(JSONObjectSyntax.value(byHand) == JSONObjectSyntax.value(codable), "\(part.key): the same values")
                        // JSONEncoder's order is its dictionary's, not the declaration's: the same keys, each once.
                        #expect(JSONObjectSyntax.members(byHand)?.map(\.key).sorted() == JSONObjectSyntax.members(codable)?.map(\.key).sorted(),
                                "\(part.key): the same keys, each once")
                    }
                }
            }
        }
    }

    /// Receipts of Live Activity pushes, whose activity, change and budget are written by hand, with awkward text and
    /// numbers in every part.
    static let activityReceipts: [DeviceLinkMessage.Receipt] = {
        var activity = LiveActivity(id: "A \"1\"", bundleID: "com.example.app", attributesType: "DeliveryAttributes",
                                    attributes: ["orderID": .string("é 🚀 \\ /"), "n": .number(0.1), "big": .number(1e20), "neg": .number(-3)],
                                    contentState: ["status": .string("tab\there"), "etaMinutes": .number(20),
                                                   "nested": .object(["list": .array([.null, .bool(false), .number(2.5)])])],
                                    startedAt: Date(timeIntervalSince1970: 1_800_000_000.123_456), pushToken: token,
                                    timestamp: Date(timeIntervalSince1970: 1_800_000_060), staleDate: Date(timeIntervalSince1970: 1_800_003_600.5),
                                    relevanceScore: 25.5)
        let running = activity
        activity.end(at: Date(timeIntervalSince1970: 1_800_000_100.25), dismissal: nil)
        let change = ActivityChange(id: activity.id, event: .end, result: .ended, reason: nil, before: running.contentState,
                                    after: ["status": .string("delivered")], channel: "Y2hhbm5lbA==")
        let bare = LiveActivity(id: "B", bundleID: "b", attributesType: "T", attributes: [:], contentState: [:],
                                startedAt: Date(timeIntervalSinceReferenceDate: 0), channelID: "Y2g=")
        var budgeted = DeviceLinkMessage.Receipt(id: "P5", outcome: .liveactivity, content: nil, detail: "throttled",
                                                 activity: bare, activityChange: .init(id: "B", event: .update, result: .throttled,
                                                                                       reason: "past the app's budget \"3\""))
        budgeted.activityBudget = .init(bundleID: "b", perHour: 3, spent: [Date(timeIntervalSince1970: 1_800_000_000.5),
                                                                           Date(timeIntervalSinceReferenceDate: 0)])
        return [
            .init(id: "P4", outcome: .liveactivity, content: nil, activity: activity, activityChange: change),
            budgeted,
            .init(id: "P6", outcome: .liveactivity, content: nil, activityChange: .init(id: nil, event: nil, result: .refused)),
        ].flatMap { [$0, $0.carried] }  // each also as it answers a carried push: where its activity stands, not all of it
    }()

    @Test("A receipt written by hand reads through Codable as the same receipt, alone, carried or kept compact")
    func receiptFrames() throws {
        let receipts = Self.activityReceipts + [
            Self.fullReceipt, .init(id: "P2", outcome: .dropped, content: nil, detail: "the extension crashed"),
        ] + Self.awkward.map { .init(id: $0, outcome: .suppressed, content: nil, detail: $0, badge: .init(bundleID: $0, count: -1)) }
        for receipt in receipts {
            #expect(try Self.decoded(DeviceLinkFraming.frame(.receipt(receipt))) == .receipt(receipt))
            #expect(DeviceLinkMessage.Receipt.Compact(receipt).receipt == receipt, "kept compact, it reads back the same")
            for deviceID in [nil, "fan-1"] + Self.awkward {
                // Read back, not compared byte for byte: the parts still written by JSONEncoder (a refusal, registered
                // categories) come out in its dictionaries' order, which differs from one writing to the next.
                var reader = DeviceLinkFraming.Reader()
                reader.append(DeviceLinkMessage.Receipt.Compact(receipt).frame(deviceID: deviceID))
                let read = try #require(try reader.nextAddressedWritten(), "one whole frame")
                #expect(read.deviceID == deviceID && read.message == .receipt(receipt),
                        "framed from its compact bytes, it reads as the receipt naming \(deviceID ?? "no device")")
                #expect(try reader.nextAddressedWritten() == nil, "and nothing after it")
            }
            let written = DeviceLinkFraming.frame(.receipt(receipt), deviceID: "fan-1")
            #expect(DeviceLinkMessage.Receipt.Compact(receipt).frame(deviceID: "fan-1").count == written.count, "as long as the frame written whole")
        }
        let carried = receipts.enumerated().map { DeviceLinkMessage.CarriedReceipt(device: "fan-\($0.offset)", body: $0.element) }
        let frames = DeviceLinkFraming.frame(.receipts(.init(receipts: carried)))
        let read = try Self.decodedFrames(frames).flatMap { message -> [DeviceLinkMessage.CarriedReceipt] in
            guard case .receipts(let receipts) = message else { Issue.record("not receipts: \(message.type)"); return [] }
            return receipts.receipts
        }
        #expect(read == carried)
    }

    @Test("A device's receipt reads as the gateway keeps it: the fields it acts on read, the rest as the device wrote them")
    func receipts() throws {
        let receipts: [DeviceLinkMessage.Receipt] = [
            Self.fullReceipt,
            .init(id: "P2", outcome: .dropped, content: nil, detail: "the extension crashed"),
            .init(id: "P3", outcome: .background, content: NotificationContent()),
        ]
        var reader = DeviceLinkFraming.Reader()
        reader.append(receipts.flatMap { DeviceLinkFraming.frame(.receipt($0)) })
        for receipt in receipts {
            guard case .receipt(let read)? = try reader.nextInbound() else { Issue.record("not a receipt"); continue }
            #expect(read.id == receipt.id)
            #expect(read.outcome == receipt.outcome)
            #expect(read.detail == receipt.detail)
            #expect(read.badge == receipt.badge)
            #expect(try read.content?.decoded() == receipt.content)
            #expect(try read.extensionRun?.decoded() == receipt.extensionRun)
            #expect(try read.presentation?.decoded() == receipt.presentation)
        }
        #expect(try reader.nextInbound() == nil)
    }

    @Test("A carried push's receipt says where its activity stands instead of the whole activity, and the gateway reads it as written")
    func carriedProgress() throws {
        for receipt in Self.activityReceipts where receipt.activity != nil {
            let carried = receipt.carried
            #expect(carried.activity == nil)
            #expect(carried.activityProgress == receipt.activity?.progress)
            var reader = DeviceLinkFraming.Reader()
            reader.append(DeviceLinkFraming.frame(.receipts(.init(receipts: [.init(device: "fan-1", body: carried)]))))
            guard case .receipts(let read)? = try reader.nextInbound() else { Issue.record("not receipts"); continue }
            #expect(read.first?.receipt.activity == nil)
            #expect(read.first?.receipt.activityProgress == receipt.activity?.progress)
            // Applied to the activity it came from, it gives the activity back.
            var before = receipt.activity.map { LiveActivity(id: $0.id, bundleID: $0.bundleID, attributesType: $0.attributesType,
                                                             attributes: $0.attributes, contentState: [:], startedAt: $0.startedAt,
                                                             pushToken: $0.pushToken, channelID: $0.channelID) }
            before?.progress = try #require(read.first?.receipt.activityProgress)
            #expect(before == receipt.activity)
        }
    }

    @Test("Every message from a device reads as the gateway keeps it: acks and receipts by hand, the rest as written")
    func others() throws {
        var reader = DeviceLinkFraming.Reader()
        reader.append(DeviceLinkTests.fromDevice.flatMap(DeviceLinkFraming.frame))
        for message in DeviceLinkTests.fromDevice {
            let read = try #require(try reader.nextInbound())
            switch (message, read) {
            case (.receipt(let receipt), .receipt(let readReceipt)): #expect(readReceipt.id == receipt.id)
            case (.receipts(let receipts), .receipts(let readReceipts)):
                #expect(readReceipts.map(\.device) == receipts.receipts.map(\.device))
                #expect(readReceipts.map(\.receipt.id) == receipts.receipts.map(\.body.id))
            default: #expect(read == message.mapReceipts(ReceivedReceipt.init) { _ in [] }, "\(message.type) read as \(read)")
            }
        }
    }

    @Test("A bad ack, receipt or push, or a message read by the wrong end, is an error naming the field and what it held", arguments: [
        (#"{"type":"ack"}"#, "ack message's id is missing"),
        (#"{"type":"ack","id":7}"#, "ack message's id is 7, not a string"),
        (#"{"type":"ack","id":"P1","pending":"yes"}"#, #"pending is "yes", not true or false"#),
        (#"{"type":"receipt","outcome":"displayed"}"#, "receipt message's id is missing"),
        (#"{"type":"receipt","id":"P1"}"#, "receipt message's outcome is missing"),
        (#"{"type":"receipt","id":"P1","outcome":"shown"}"#, #"outcome is "shown", not one of displayed, background"#),
        (#"{"type":"receipt","id":"P1","outcome":"displayed","content":"hello"}"#, #"content is "hello", not an object"#),
        (#"{"type":"receipt","id":"P1","outcome":"displayed","extension":[1]}"#, "extension is [1], not an object"),
        (#"{"type":"receipt","id":"P1","outcome":"displayed","presentation":true}"#, "presentation is true, not an object"),
        (#"{"type":"receipt","id":"P1","outcome":"displayed","detail":5}"#, "detail is 5, not a string"),
        (#"{"type":"receipt","id":"P1","outcome":"displayed","badge":{"bundleID":"a","count":"3"}}"#, "badge is {\"bundleID\""),
        (#"{"type":"receipt","id":"P1","outcome":"displayed","badge":2}"#, "badge is 2, not an object"),
        (#"{"type":"receipt","id":"P1","outcome":"liveactivity","activityProgress":{"id":"A"}}"#,
         #"activityProgress is {"id":"A"}, not a LiveActivity.Progress"#),
        (#"{"type":"receipt","id":"P1","outcome":"displayed""#, "not a device-link message"),
        (#"{"type":"push","id":"P1","apnsID":"A","token":"zz","bundleID":"b","pushType":"alert","priority":10,"payload":"{}"}"#,
         #"push message's token is "zz", not a device token"#),
        (#"{"type":"push","id":"P1","apnsID":"A","token":"abababababababab","bundleID":"b","pushType":"Alert","priority":10,"payload":"{}"}"#,
         #"pushType is "Alert", not a push type"#),
        (#"{"type":"push","id":"P1","apnsID":"A","token":"abababababababab","bundleID":"b","pushType":"alert","priority":"10","payload":"{}"}"#,
         #"priority is "10", not a whole number"#),
        (#"{"type":"push","id":"P1","apnsID":"A","token":"abababababababab","bundleID":"b","pushType":"alert","priority":10}"#,
         "push message's payload is missing"),
        (#"{"type":"hello","version":1,"device":{"id":"d","name":"d"}}"#, "hello is no message a gateway sends a device"),
        (#"{"type":"welcome","version":1,"heartbeatInterval":15}"#, "welcome is no message a device sends a gateway"),
    ])
    func badFrames(_ body: String, _ says: String) {
        var reader = DeviceLinkFraming.Reader()
        let bytes = Array(body.utf8)
        reader.append([0, 0, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes)
        do {
            // A push or a hello is read as its receiver reads it: a push by a device, anything else by the gateway.
            if body.contains(#""type":"push""#) || body.contains(#""type":"hello""#) {
                let read = try reader.next()
                Issue.record("read \(String(describing: read))")
            } else {
                let read = try reader.nextInbound()
                Issue.record("read \(String(describing: read))")
            }
        } catch {
            #expect(error.description.contains(says), "\(error.description)")
        }
    }

    @Test("A receipt's parts may be null or absent, and keys it does not have are ignored, as Codable reads them")
    func lenient() throws {
        let body = #"{"type":"receipt","id":"P1","outcome":"suppressed","content":null,"extension":null,"badge":null,"later":{"x":1}}"#
        var reader = DeviceLinkFraming.Reader()
        reader.append([0, 0, 0, UInt8(body.utf8.count)] + Array(body.utf8))
        #expect(try reader.nextInbound() == .receipt(ReceivedReceipt(id: "P1", outcome: .suppressed)))
    }
}
