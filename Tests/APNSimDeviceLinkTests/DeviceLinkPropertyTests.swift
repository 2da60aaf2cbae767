@testable import APNSimDeviceLink
import APNSimRules
import Foundation
import PropertyBased
import Testing

/// The device link's one definition of each message is its type's `Codable` form; the hot messages' hand codec (a
/// push, a carry, an ack, a receipt, a broadcast's receipts) is held to it here. For random messages of every case of
/// each direction, every writer's frame reads back as the message through every reader: the hand writer's through
/// `Codable` and the hand reader, `Codable`'s through the hand reader, on a device's own link and on a shared one. A
/// field the hand codec leaves out, or writes in a form `Codable` would not read, fails here; so does a case or a
/// field the draw (``LinkMessageDraw``) does not make.
@Suite("Device link: every message reads back as itself, whichever side's codec wrote it")
struct DeviceLinkPropertyTests {
    static let toDeviceKinds = Gen<DeviceLinkMessage.ToDeviceKind>.case
    static let fromDeviceKinds = Gen<DeviceLinkMessage.FromDeviceKind>.case
    static let seeds = Gen.uint64(in: 0...UInt64.max)

    @Test("A message to a device, written by either codec, reads back whole by either")
    func toDevice() async {
        await propertyCheck(count: 400, input: Self.toDeviceKinds, Self.seeds) { kind, seed in
            var draw = LinkMessageDraw(seed: seed)
            let message = draw.toDevice(kind)
            #expect(message.kind == kind, "LinkMessageDraw.toDevice(.\(kind)) draws a \(kind)")
            let deviceID = draw.text()
            let byHand = DeviceLinkFraming.frame(message)
            let byCodable = DeviceLinkFraming.framed(Array(try JSONEncoder().encode(message)))
            #expect(try Self.readOnDevice(byHand) == [message], "the device reads what the gateway writes")
            #expect(try Self.joined(Self.bodies(byHand).map { try JSONDecoder().decode(DeviceLinkMessage.ToDevice.self, from: Data($0)) })
                    == [message], "Codable reads what the gateway writes")
            #expect(try Self.readOnDevice(byCodable) == [message], "the device reads what Codable writes")
            var shared = DeviceLinkFraming.Reader()
            shared.append(DeviceLinkFraming.frame(message, deviceID: deviceID))
            var addressed: [(deviceID: String?, message: DeviceLinkMessage.ToDevice)] = []
            while let next = try shared.nextAddressed() { addressed.append(next) }
            #expect(Self.joined(addressed.map(\.message)) == [message])
            #expect(addressed.allSatisfy { $0.deviceID == (message.isAboutLink ? nil : deviceID) }, "a shared link's frame names its device")
        }
    }

    @Test("A message from a device, written by either codec, reads back whole by either")
    func fromDevice() async {
        await propertyCheck(count: 400, input: Self.fromDeviceKinds, Self.seeds) { kind, seed in
            var draw = LinkMessageDraw(seed: seed)
            let message = draw.fromDevice(kind)
            #expect(message.kind == kind, "LinkMessageDraw.fromDevice(.\(kind)) draws a \(kind)")
            let deviceID = draw.text()
            let byHand = DeviceLinkFraming.frame(message)
            let byCodable = DeviceLinkFraming.framed(Array(try JSONEncoder().encode(message)))
            #expect(try Self.readOnGateway(byHand) == [message], "the gateway reads what the device writes")
            #expect(try Self.joined(Self.bodies(byHand).map { try JSONDecoder().decode(DeviceLinkMessage.Written.self, from: Data($0)) })
                    == [message], "Codable reads what the device writes")
            #expect(try Self.readOnGateway(byCodable) == [message], "the gateway reads what Codable writes")
            var shared = DeviceLinkFraming.Reader()
            shared.append(DeviceLinkFraming.frame(message, deviceID: deviceID))
            var addressed: [(deviceID: String?, message: DeviceLinkMessage.Written)] = []
            while let next = try shared.nextAddressedInbound() { addressed.append((next.deviceID, try next.inbound.written())) }
            #expect(Self.joined(addressed.map(\.message)) == [message])
            #expect(addressed.allSatisfy { $0.deviceID == (message.isAboutLink ? nil : deviceID) }, "a shared link's frame names its device")
        }
    }

    /// Fields of the hot messages that are not on the wire: an attachment's file is the device's own path to it.
    static let offTheWire: Set<String> = ["receipt.content.attachments[].file", "receipt.extension.refusedAttachments[].file"]

    @Test("The draw sets every field of the hot messages, so a field added to one is in the properties above")
    func everyFieldDrawn() {
        var draw = LinkMessageDraw(seed: 0xF1E1D)
        var fields = FieldCoverage()
        for _ in 0..<300 {
            fields.walk(draw.delivery(), at: "push")
            fields.walk(draw.receipt(), at: "receipt")
            if case .ack(let ack) = draw.fromDevice(.ack) { fields.walk(ack, at: "ack") }
        }
        let never = fields.all.subtracting(fields.set).subtracting(Self.offTheWire)
        #expect(never.isEmpty, "LinkMessageDraw never sets \(never.sorted()): draw them, and carry them in the hand codec")
        #expect(fields.all.count > 90, "the walk reached the hot messages' nested fields (\(fields.all.count))")
    }

    /// The messages in `bytes` as a device reads them.
    static func readOnDevice(_ bytes: [UInt8]) throws -> [DeviceLinkMessage.ToDevice] {
        var reader = DeviceLinkFraming.Reader()
        reader.append(bytes)
        var messages: [DeviceLinkMessage.ToDevice] = []
        while let message = try reader.next() { messages.append(message) }
        return joined(messages)
    }

    /// The messages in `bytes` as the gateway reads them, as the device wrote them.
    static func readOnGateway(_ bytes: [UInt8]) throws -> [DeviceLinkMessage.Written] {
        var reader = DeviceLinkFraming.Reader()
        reader.append(bytes)
        var messages: [DeviceLinkMessage.Written] = []
        while let inbound = try reader.nextInbound() { messages.append(try inbound.written()) }
        return joined(messages)
    }

    /// The bodies of the frames in `bytes`.
    static func bodies(_ bytes: [UInt8]) throws -> [ArraySlice<UInt8>] {
        var reader = DeviceLinkFraming.Reader()
        reader.append(bytes)
        var bodies: [ArraySlice<UInt8>] = []
        while let body = try reader.nextBody() { bodies.append(body) }
        return bodies
    }

    /// A carry written in several frames (those that share a `common`, the rest, or as many as 64 KiB needs) is one
    /// carry again.
    static func joined(_ messages: [DeviceLinkMessage.ToDevice]) -> [DeviceLinkMessage.ToDevice] {
        messages.reduce(into: []) { joined, message in
            if case .carry(let more) = message, case .carry(var carry)? = joined.last {
                carry.pushes += more.pushes
                joined[joined.count - 1] = .carry(carry)
            } else {
                joined.append(message)
            }
        }
    }

    /// Receipts written in several frames are one message again.
    static func joined(_ messages: [DeviceLinkMessage.Written]) -> [DeviceLinkMessage.Written] {
        messages.reduce(into: []) { joined, message in
            if case .receipts(let more) = message, case .receipts(var receipts)? = joined.last {
                receipts.receipts += more.receipts
                joined[joined.count - 1] = .receipts(receipts)
            } else {
                joined.append(message)
            }
        }
    }
}

extension DeviceLinkInbound {
    /// The message as the device wrote it: what the gateway keeps as the device's text, read back.
    func written() throws -> DeviceLinkMessage.Written {
        switch self {
        case .receipt(let received): return .receipt(try received.written())
        case .receipts(let carried):
            return .receipts(.init(receipts: try carried.map { .init(device: $0.device, body: try $0.receipt.written()) }))
        default:
            return mapReceipts({ _ in preconditionFailure("a receipt is read above") }, { _ in preconditionFailure("receipts are read above") })
        }
    }
}

extension ReceivedReceipt {
    /// The receipt the device wrote, its parts kept as text read back.
    func written() throws -> DeviceLinkMessage.Receipt {
        var receipt = DeviceLinkMessage.Receipt(id: id, outcome: outcome, content: try content?.decoded(), detail: detail,
                                                extensionRun: try extensionRun?.decoded(), badge: badge,
                                                presentation: try presentation?.decoded(), activity: activity,
                                                activityChange: try activityChange?.decoded())
        receipt.activityBudget = activityBudget
        receipt.activityProgress = activityProgress
        receipt.widgetReload = try widgetReload?.decoded()
        return receipt
    }
}

/// Which stored fields of a value (and of the structs and arrays of structs it holds) were ever set: not `nil`, not
/// empty. Named as the wire names them where the two differ (a receipt's `extensionRun` is `extension`).
struct FieldCoverage {
    private(set) var all: Set<String> = []
    private(set) var set: Set<String> = []

    static let wireNames = ["extensionRun": "extension"]

    mutating func walk(_ value: Any, at path: String) {
        for child in Mirror(reflecting: value).children {
            guard let label = child.label else { continue }
            let field = "\(path).\(Self.wireNames[label] ?? label)"
            all.insert(field)
            guard let present = Self.unwrapped(child.value) else { continue }
            let mirror = Mirror(reflecting: present)
            switch mirror.displayStyle {
            case .collection?:
                guard !mirror.children.isEmpty else { continue }
                set.insert(field)
                for element in mirror.children where Mirror(reflecting: element.value).displayStyle == .struct {
                    walk(element.value, at: field + "[]")
                }
            case .dictionary?, .set?:
                if !mirror.children.isEmpty { set.insert(field) }
            case .struct?:
                set.insert(field)
                // A few structs are one value on the wire (a token, a date): their insides are not fields.
                if !(present is DeviceToken || present is Date) { walk(present, at: field) }
            default:
                set.insert(field)
            }
        }
    }

    /// `value` without its optional, or `nil` when it is `nil`.
    private static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrapped($0.value) } ?? nil
    }
}

