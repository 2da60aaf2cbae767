import APNSimRules
import Foundation

/// A delivery as the record keeps it, in a store file's row or in memory (``MemoryDeliveries``): the receipt's content,
/// extension run, presentation and activity stay the JSON the device wrote (``EncodedJSON``), decoded only when a
/// reader asks for the record (``DeliveryRecord/init(_:)``).
struct StoredDelivery: Sendable {
    var id: String
    var apnsID: String
    var uniqueID: String?
    var device: String
    var bundleID: String
    var token: String
    var pushType: String
    var outcome: DeliveryOutcome?
    var content: EncodedJSON<NotificationContent>?
    var detail: String?
    var acceptedAt: Date
    var deliveredAt: Date?
    var displayedAt: Date?
    var extensionRun: EncodedJSON<ExtensionRun>?
    var presentation: EncodedJSON<Presentation>?
    /// The `activity` column (``ReceiptChange``).
    var activity: ReceiptChange?
    var storedAt: Date?
    var storedFor: StoredFor?
}

extension StoredDelivery {
    /// What an accepted record writes: everything but when and why it was stored, which ``DeliveryEvent/stored``
    /// brings. A record is accepted with no content, extension run or presentation (the receipt brings them) except
    /// the few the gateway completes itself.
    init(accepted record: DeliveryRecord) {
        id = record.id
        apnsID = record.apnsID
        uniqueID = record.uniqueID
        device = record.device
        bundleID = record.bundleID
        token = record.token
        pushType = record.pushType
        outcome = record.outcome
        content = record.content.map(EncodedJSON.init)
        detail = record.detail
        acceptedAt = record.acceptedAt
        deliveredAt = record.deliveredAt
        displayedAt = record.displayedAt
        extensionRun = record.extensionRun.map(EncodedJSON.init)
        presentation = record.presentation.map(EncodedJSON.init)
        activity = record.activity.map { ReceiptChange(EncodedJSON($0)) } ?? record.widgets.map { ReceiptChange(EncodedJSON($0)) }
    }
}

extension DeliveryRecord {
    /// The record a reader sees. A receipt part that does not read as its type is left out and named in
    /// ``unreadable``, so one device's bad receipt cannot make the rest of the record unreadable.
    init(_ stored: StoredDelivery) {
        self.init(id: stored.id, apnsID: stored.apnsID, device: stored.device, bundleID: stored.bundleID, token: stored.token,
                  pushType: stored.pushType, acceptedAt: stored.acceptedAt)
        uniqueID = stored.uniqueID
        outcome = stored.outcome
        detail = stored.detail
        deliveredAt = stored.deliveredAt
        displayedAt = stored.displayedAt
        var unreadable: [String] = []
        content = Self.read(stored.content, as: "content", unreadable: &unreadable)
        extensionRun = Self.read(stored.extensionRun, as: "extension", unreadable: &unreadable)
        presentation = Self.read(stored.presentation, as: "presentation", unreadable: &unreadable)
        if ReceiptChange.isWidgetReload(stored.pushType) {
            widgets = Self.read(stored.activity.map { EncodedJSON<WidgetReload>(unchecked: $0.text) }, as: "widgets", unreadable: &unreadable)
        } else {
            activity = Self.read(stored.activity.map { EncodedJSON<ActivityChange>(unchecked: $0.text) }, as: "activity", unreadable: &unreadable)
        }
        storedAt = stored.storedAt
        storedFor = stored.storedFor
        consoleState = ConsoleState.of(outcome: outcome, detail: detail, storedFor: storedFor, deliveredAt: deliveredAt)
        self.unreadable = unreadable.isEmpty ? nil : unreadable
    }

    private static func read<Value: Codable>(_ json: EncodedJSON<Value>?, as field: String, unreadable: inout [String]) -> Value? {
        guard let json else { return nil }
        do {
            return try json.decoded()
        } catch {
            let text = json.text
            unreadable.append("\(field): the device's receipt held \(text.count > 200 ? text.prefix(200) + "…" : text), "
                              + "which is not a \(Value.self) (\(Self.reason(error)))")
            return nil
        }
    }

    /// What `JSONDecoder` says is wrong, in words: which field, and what it expected.
    private static func reason(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .typeMismatch(let type, let context)?: "\(path(context)) is not a \(type)"
        case .keyNotFound(let key, let context)?: "\(path(context, key)) is missing"
        case .valueNotFound(let type, let context)?: "\(path(context)) is null, not a \(type)"
        case .dataCorrupted(let context)?: "\(path(context)): \(context.debugDescription)"
        default: "\(error)"
        }
    }

    /// The field a decoding error names, such as `attachments.0.size` (`the whole` for the top).
    private static func path(_ context: DecodingError.Context, _ last: (any CodingKey)? = nil) -> String {
        let keys = context.codingPath + (last.map { [$0] } ?? [])
        let path = keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        return path.isEmpty ? "the whole" : path
    }
}

/// What a push changed on its device besides what it shows, as its receipt wrote it: a Live Activity's change
/// (``ActivityChange``) for a `liveactivity` push, a reload (``WidgetReload``) for a `widgets` or `controls` push. A push
/// has one type, so the record keeps either in one column (`activity`) and reads it back by the push's type.
public struct ReceiptChange: Sendable, Hashable {
    public let text: String

    public init(unchecked text: String) { self.text = text }
    public init(_ change: EncodedJSON<ActivityChange>) { text = change.text }
    public init(_ reload: EncodedJSON<WidgetReload>) { text = reload.text }

    /// Whether a push of `pushType` records a widget reload here rather than a Live Activity's change.
    static func isWidgetReload(_ pushType: String) -> Bool { pushType == "widgets" || pushType == "controls" }
}
