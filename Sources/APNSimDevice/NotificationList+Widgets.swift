import APNSimDeviceLink
import APNSimRules
import Foundation

/// What a push can reload: an app's widgets (its widget token) or one of its controls (that control's token).
public struct WidgetTarget: Sendable, Hashable {
    public var bundleID: String
    /// The control's kind; `nil`: the app's widgets.
    public var control: String?
}

/// Widgets and controls on the device (WidgetKit): a `widgets` push to an app's widget token reloads its widgets' timelines
/// within their daily budget (``WidgetReloadBudget``), a `controls` push to a control's token reloads that control (Apple
/// gives controls no budget, and apnsim counts none). Either push needs `"content-changed": true` in `aps`, as Apple's
/// requests carry it; without it the device reloads nothing, apnsim's choice (Apple does not say).
extension NotificationList {
    /// The widget and control tokens the gateway issued an app (they replace its earlier ones).
    public mutating func setWidgetTokens(_ registered: RegisteredApp, for bundleID: String) {
        widgetTokens = widgetTokens.filter { $0.value.bundleID != bundleID }
        if let token = registered.widgetToken { widgetTokens[token] = WidgetTarget(bundleID: bundleID) }
        for (kind, token) in registered.controlTokens ?? [:] { widgetTokens[token] = WidgetTarget(bundleID: bundleID, control: kind) }
    }

    /// The receipt of a `widgets` or `controls` push: what it reloaded, or why nothing.
    mutating func widgetReceipt(_ delivery: DeviceLinkMessage.Delivery, payload: PushPayload, now: Date,
                                app: AppManifest?) -> DeviceLinkMessage.Receipt {
        func refused(_ kinds: [String], _ reason: String) -> DeviceLinkMessage.Receipt {
            var receipt = DeviceLinkMessage.Receipt(id: delivery.id, outcome: .widget, content: nil, detail: "nothing reloaded: \(reason)")
            receipt.widgetReload = WidgetReload(kinds: kinds, result: .refused, reason: reason)
            return receipt
        }
        guard let target = widgetTokens[delivery.token] else {
            return refused([], "token \(delivery.token.short) is no widget or control push token of \(delivery.bundleID) on this device")
        }
        let isControl = delivery.pushType == .controls
        guard isControl == (target.control != nil) else {
            return refused(target.control.map { [$0] } ?? app?.declaration.widgets?.kinds ?? [], isControl
                ? "a controls push went to \(target.bundleID)'s widget token; send it to a control's token"
                : "a widgets push went to the token of control \(target.control ?? ""); send it to the app's widget token")
        }
        let kinds = target.control.map { [$0] } ?? app?.declaration.widgets?.kinds ?? []
        guard payload.aps["content-changed"] == .bool(true) else {
            return refused(kinds, "aps has no \"content-changed\": true, which a WidgetKit push carries")
        }
        if let control = target.control {
            var receipt = DeviceLinkMessage.Receipt(id: delivery.id, outcome: .widget, content: nil, detail: "control \(control) reloaded")
            receipt.widgetReload = WidgetReload(kinds: kinds, result: .reloaded)
            return receipt
        }
        var budget = widgetBudgets[target.bundleID]
            ?? WidgetReloadBudget(perDay: app?.declaration.widgets?.dailyReloads ?? WidgetReloadBudget.defaultDailyReloads)
        // A reload while the app is in the foreground does not count against the budget ("Keeping a widget up to date").
        let spent = budget.spend(at: now, free: foreground[target.bundleID] != nil)
        widgetBudgets[target.bundleID] = budget
        var receipt: DeviceLinkMessage.Receipt
        if spent {
            receipt = .init(id: delivery.id, outcome: .widget, content: nil,
                            detail: "widgets reloaded: \(kinds.joined(separator: ", "))")
            receipt.widgetReload = WidgetReload(kinds: kinds, result: .reloaded, dailyReloads: budget.perDay, spentToday: budget.spent.count)
        } else {
            let reason = "\(target.bundleID)'s widgets have had their \(budget.perDay) reloads in the last 24 hours; WidgetKit reloads later"
            receipt = .init(id: delivery.id, outcome: .widget, content: nil, detail: "widgets deferred: \(reason)")
            receipt.widgetReload = WidgetReload(kinds: kinds, result: .deferred, reason: reason, dailyReloads: budget.perDay,
                                                spentToday: budget.spent.count)
        }
        return receipt
    }
}
