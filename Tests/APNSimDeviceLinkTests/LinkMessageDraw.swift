@testable import APNSimDeviceLink
import APNSimRules
import Foundation

/// Random device-link messages, every case of each direction, with every field of the hot ones (a push, a carry, an
/// ack, a receipt, a broadcast's receipts) drawn present or absent and their text drawn from what JSON must escape.
/// Seeded: the property test's seed picks this draw's, so a failure names one that reproduces it.
struct LinkMessageDraw {
    private var random: SplitMix

    init(seed: UInt64) { random = SplitMix(seed: seed) }

    /// Text that needs escaping in every way JSON has, and some that does not.
    static let awkward = ["", "plain", #"quote " and backslash \ and slash /"#, "tab\tnewline\nreturn\rbell\u{7}nul\u{0}",
                          "é 🚀 中文", #"{"aps":{"alert":"Hi \"there\""}}"#, "\u{1F}\u{7F}\u{2028}"]

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func bool() -> Bool { Bool.random(using: &random) }

    mutating func pick<T>(_ choices: [T]) -> T { choices[int(0...(choices.count - 1))] }

    /// `make`'s value three times in four, else `nil`: every optional field is drawn both ways.
    mutating func maybe<T>(_ make: (inout LinkMessageDraw) -> T) -> T? {
        int(0...3) == 0 ? nil : make(&self)
    }

    mutating func many<T>(_ range: ClosedRange<Int>, _ make: (inout LinkMessageDraw) -> T) -> [T] {
        (0..<int(range)).map { _ in make(&self) }
    }

    mutating func text() -> String {
        switch int(0...2) {
        case 0: return pick(Self.awkward)
        case 1: return "id-\(int(0...99_999))"
        default:  // any bytes, made valid UTF-8 (U+FFFD where they were not)
            return String(decoding: (0..<int(0...24)).map { _ in UInt8(truncatingIfNeeded: int(0...255)) }, as: UTF8.self)
        }
    }

    mutating func token() -> DeviceToken {
        DeviceToken(String((0..<64).map { _ in pick(Array("0123456789abcdef")) }))!
    }

    /// A date to the millisecond, as Codable writes and reads it (seconds since 2001, a Double).
    mutating func date() -> Date {
        Date(timeIntervalSinceReferenceDate: Double(int(0...2_000_000_000_000)) / 1000)
    }

    mutating func number() -> Double { pick([0, 1, -3, 0.5, 1e300, 123_456.789, Double(int(-1000...1000)) / 8]) }

    mutating func json(depth: Int = 2) -> JSONValue {
        switch int(0...(depth > 0 ? 5 : 3)) {
        case 0: return .null
        case 1: return .bool(bool())
        case 2: return .number(number())
        case 3: return .string(text())
        case 4: return .array(many(0...3) { $0.json(depth: depth - 1) })
        default: return .object(object(depth: depth - 1))
        }
    }

    mutating func object(depth: Int = 1) -> [String: JSONValue] {
        Dictionary(many(0...3) { ($0.text(), $0.json(depth: depth)) }, uniquingKeysWith: { first, _ in first })
    }

    mutating func payload() -> String {
        pick([#"{"aps":{"alert":"Hi"}}"#, #"{"aps":{"alert":{"title":"T \"q\"","body":"é\n"},"mutable-content":1}}"#, text()])
    }
}

// MARK: - Gateway → device

extension LinkMessageDraw {
    /// A message of case `kind`; a kind added stops this compiling until it is drawn.
    mutating func toDevice(_ kind: DeviceLinkMessage.ToDeviceKind) -> DeviceLinkMessage.ToDevice {
        switch kind {
        case .welcome: return .welcome(.init(heartbeatInterval: Double(int(1...600)) / 4))
        case .registered: return .registered(.init(bundleID: text(), environment: pick(APNsEnvironment.allCases), token: token(),
                                         pushToStartTokens: maybe { draw in ["\(draw.text())Attributes": draw.token()] }))
        case .push: return .push(delivery())
        case .carry: return .carry(carry())
        case .install: return .install(.signed(bundleID: text(), team: text(), environment: pick(APNsEnvironment.allCases), now: date()))
        case .uninstall: return .uninstall(.init(bundleID: text()))
        case .foreground: return .foreground(.init(bundleID: text(), options: maybe { $0.many(0...3) { $0.pick(["banner", "list", "sound", "badge"]) } }))
        case .restart: return .restart(.init())
        case .focus: return .focus(.init(focus: maybe { Focus(name: $0.text(), allowedApps: $0.many(0...2) { $0.text() }) }))
        case .summary: return .summary(.init(summary: maybe { ScheduledSummary(times: ["08:00", "18:30"], timeZone: $0.pick(["Europe/Paris", "UTC"])) }))
        case .deliverSummary: return .deliverSummary(.init(id: text()))
        case .startActivity: return .startActivity(.init(activity: activity()))
        case .endActivity: return .endActivity(.init(id: text(), bundleID: text(), contentState: maybe { $0.object() }, dismissalDate: maybe { $0.date() }, at: date()))
        case .interact: return .interact(.init(id: text(), apnsID: text(), action: text(), text: maybe { $0.text() }, at: date()))
        case .heartbeat: return .heartbeat(.init(sequence: int(0...Int(Int32.max))))
        case .heartbeatAck: return .heartbeatAck(.init(sequence: int(0...Int(Int32.max))))
        case .error: return .error(.init(reason: text(), explanation: text()))
        }
    }

    mutating func delivery() -> DeviceLinkMessage.Delivery {
        .init(id: text(), apnsID: text(), token: token(), bundleID: text(), pushType: pick(PushType.all), priority: pick([1, 5, 10]),
              collapseID: maybe { $0.text() }, payload: payload(), channel: maybe { $0.text() }, activity: maybe { $0.text() })
    }

    /// Pushes for several devices: a broadcast's, which share all but their device, ID, token and activity (written
    /// with a `common`), or pushes that share less (written whole).
    mutating func carry() -> DeviceLinkMessage.Carry {
        let shared = delivery()
        return .init(pushes: many(1...4) { draw in
            var push = draw.bool() ? shared : draw.delivery()
            push.id = draw.text()
            push.token = draw.token()
            push.activity = draw.maybe { $0.text() }
            return .init(device: draw.text(), body: push)
        })
    }

    mutating func activity() -> LiveActivity {
        var activity = LiveActivity(id: text(), bundleID: text(), attributesType: text(), attributes: object(), contentState: object(),
                                    startedAt: date(), pushToken: maybe { $0.token() }, timestamp: maybe { $0.date() },
                                    staleDate: maybe { $0.date() }, relevanceScore: maybe { $0.number() }, channelID: maybe { $0.text() })
        activity.endedAt = maybe { $0.date() }
        activity.dismissalDate = maybe { $0.date() }
        return activity
    }
}

// MARK: - Device → gateway

extension LinkMessageDraw {
    /// A message of case `kind`; a kind added stops this compiling until it is drawn.
    mutating func fromDevice(_ kind: DeviceLinkMessage.FromDeviceKind) -> DeviceLinkMessage.Written {
        switch kind {
        case .hello: return .hello(.init(device: .init(id: text(), name: text()), host: maybe { $0.text() }))
        case .link: return .link(.init(host: text()))
        case .register: return .register(.init(bundleID: text(), environment: pick(APNsEnvironment.allCases), installation: text(),
                                       team: maybe { $0.text() }, badge: maybe { $0.int(0...99) },
                                       pushToStartTypes: maybe { $0.many(0...2) { $0.text() } }))
        case .unregister: return .unregister(.init(token: token()))
        case .installRefused: return .installRefused(.init(bundleID: text(), kind: .extensionPrefix, message: text()))
        case .ack: return .ack(.init(id: text(), pending: maybe { $0.bool() }, forgotten: maybe { $0.bool() }))
        case .receipt: return .receipt(receipt())
        case .receipts: return .receipts(receipts())
        case .attachmentCopy: return .attachmentCopy(.init(sha256: String(repeating: "a", count: 64), uti: maybe { _ in "public.jpeg" }, size: int(1...9),
                                             offset: 0, data: "AAEC"))
        case .interacted: return .interacted(.init(id: text(), refusal: maybe { $0.text() }))
        case .summarized: return .summarized(SummaryDelivery(id: text(), device: text(), scheduledFor: maybe { $0.date() }, at: date(),
                                                    notifications: many(0...2) { draw in
                                                        .init(apnsID: draw.text(), deliveryID: draw.text(), bundleID: draw.text(),
                                                              title: draw.maybe { $0.text() }, body: draw.maybe { $0.text() },
                                                              relevanceScore: draw.number(), arrived: draw.date())
                                                    }, detail: text()))
        case .activities: return .activities(.init(bundleID: text(), activities: many(0...2) { $0.activity() }))
        case .heartbeat: return .heartbeat(.init(sequence: int(0...Int(Int32.max))))
        case .heartbeatAck: return .heartbeatAck(.init(sequence: int(0...Int(Int32.max))))
        case .error: return .error(.init(reason: text(), explanation: text()))
        }
    }

    mutating func receipt() -> DeviceLinkMessage.Receipt {
        var receipt = DeviceLinkMessage.Receipt(
            id: text(), outcome: pick(DeliveryOutcome.allCases), content: maybe { $0.content() }, detail: maybe { $0.text() },
            extensionRun: maybe { $0.extensionRun() }, badge: maybe { .init(bundleID: $0.text(), count: $0.int(0...999)) },
            presentation: maybe { $0.presentation() }, activity: maybe { $0.activity() }, activityChange: maybe { $0.activityChange() })
        receipt.activityBudget = maybe { .init(bundleID: $0.text(), perHour: $0.int(0...50), spent: $0.many(0...3) { $0.date() }) }
        receipt.activityProgress = maybe { LiveActivity.Progress($0.activity()) }
        receipt.widgetReload = maybe {
            WidgetReload(kinds: $0.many(0...2) { $0.text() }, result: $0.pick([.reloaded, .deferred, .refused]), reason: $0.maybe { $0.text() },
                         dailyReloads: $0.maybe { $0.int(1...70) }, spentToday: $0.maybe { $0.int(0...70) })
        }
        return receipt
    }

    /// A broadcast's receipts, which share all but their device, ID, detail and activity (written with a `common`), or
    /// receipts that share less (written whole).
    mutating func receipts() -> DeviceLinkMessage.Receipts {
        let shared = receipt()
        return .init(receipts: many(1...4) { draw in
            var receipt = draw.bool() ? shared : draw.receipt()
            receipt.id = draw.text()
            receipt.detail = draw.maybe { $0.text() }
            return .init(device: draw.text(), body: receipt)
        })
    }

    mutating func content() -> NotificationContent {
        var content = NotificationContent(title: maybe { $0.text() }, subtitle: maybe { $0.text() }, body: maybe { $0.text() },
                                          badge: maybe { $0.int(0...999) }, sound: maybe { $0.text() }, threadID: maybe { $0.text() },
                                          category: maybe { $0.text() })
        content.interruptionLevel = maybe { $0.pick(["passive", "active", "time-sensitive", "critical"]) }
        content.relevanceScore = maybe { $0.number() }
        content.attachments = many(0...2) { $0.attachment() }
        content.userInfo = object()
        content.actions = maybe { $0.many(0...2) { $0.action() } }
        return content
    }

    mutating func action() -> NotificationCategory.Action {
        .init(identifier: text(), title: text(), options: many(0...2) { $0.pick(Array(NotificationCategory.Action.optionNames)) },
              textInput: maybe { .init(buttonTitle: $0.text(), placeholder: $0.text()) },
              icon: maybe { .init(systemImageName: $0.maybe { $0.text() }, templateImageName: $0.maybe { $0.text() }) })
    }

    mutating func attachment() -> NotificationContent.Attachment {
        .init(identifier: text(), type: maybe { $0.pick(["public.jpeg", "public.png"]) }, size: int(0...10_000_000),
              sha256: String(repeating: "c", count: 64), url: maybe { $0.text() },
              refusal: maybe { .init(code: $0.pick([.invalidURL, .invalidFileSize, .corrupt]), message: $0.text()) })
    }

    mutating func extensionRun() -> ExtensionRun {
        var run = ExtensionRun(ran: bool(), kind: maybe { $0.pick(ExtensionKind.allCases) }, outcome: pick([.completed, .expired, .crashed, .killed, .notLaunched]),
                               diagnostic: text(), durationMs: int(0...30_000), violations: many(0...2) { $0.text() },
                               pickedBy: maybe { $0.text() }, launched: bool(), suppressed: bool(), log: many(0...2) { $0.text() },
                               refusedAttachments: many(0...1) { $0.attachment() })
        run.registeredCategories = maybe { $0.many(0...2) { draw in
            NotificationCategory(identifier: draw.text(), actions: draw.many(0...2) { $0.action() },
                                 options: draw.many(0...2) { $0.pick(Array(NotificationCategory.optionNames)) },
                                 intentIdentifiers: draw.many(0...1) { $0.text() }, hiddenPreviewsBodyPlaceholder: draw.maybe { $0.text() },
                                 categorySummaryFormat: draw.maybe { $0.text() })
        } }
        run.downloads = maybe { $0.many(0...2) { draw in
            MediaDownload(url: draw.text(), status: draw.maybe { $0.pick([200, 404]) }, bytes: draw.int(0...99_999),
                          durationMs: draw.int(0...999), error: draw.maybe { $0.text() })
        } }
        return run
    }

    mutating func presentation() -> Presentation {
        var presentation = Presentation(bundleID: text(), thread: maybe { $0.text() }, banner: bool(), list: bool())
        presentation.summary = maybe { $0.text() }
        return presentation
    }

    mutating func activityChange() -> ActivityChange {
        ActivityChange(id: maybe { $0.text() }, event: maybe { $0.pick(ActivityPush.Event.allCases) },
                       result: pick([.started, .applied, .ended, .ignored, .throttled, .refused]), reason: maybe { $0.text() },
                       before: maybe { $0.object() }, after: maybe { $0.object() }, channel: maybe { $0.text() })
    }
}
