import Foundation

extension World.App {
    /// The widgets an app's widget extension offers, as a world file declares them (WidgetKit). With a push handler
    /// (`WidgetConfiguration.pushHandler(_:)`, iOS 26) the app gets one widget push token on each device, and a
    /// `widgets` push to it reloads the app's widget timelines, as `reloadAllTimelines()` does (Apple, "Updating widgets
    /// with WidgetKit push notifications",
    /// https://developer.apple.com/documentation/widgetkit/updating-widgets-with-widgetkit-push-notifications).
    public struct Widgets: Sendable, Hashable, Codable {
        /// The widgets' `kind` strings.
        public var kinds: [String]
        /// Whether the widgets register a `WidgetPushHandler`; `nil`: they do (why else declare them to a push simulator).
        public var pushHandler: Bool?
        /// How many reloads each widget has in 24 hours (``WidgetReloadBudget``); `nil`: 40.
        public var dailyReloads: Int?

        public init(kinds: [String], pushHandler: Bool? = nil, dailyReloads: Int? = nil) {
            self.kinds = kinds
            self.pushHandler = pushHandler
            self.dailyReloads = dailyReloads
        }

        public var takesPushes: Bool { pushHandler ?? true }
    }

    /// The controls an app offers (Control Center, the Lock Screen, the Action button; iOS 18). Each with a push handler
    /// (`ControlWidgetConfiguration.pushHandler(_:)`) gets a push token of its own (`ControlPushInfo.token`), and a
    /// `controls` push to it reloads that control (Apple, "Updating controls locally and remotely",
    /// https://developer.apple.com/documentation/widgetkit/updating-controls-locally-and-remotely).
    public struct Controls: Sendable, Hashable, Codable {
        /// The controls' `kind` strings.
        public var kinds: [String]
        /// Whether the controls register a `ControlPushHandler`; `nil`: they do.
        public var pushHandler: Bool?

        public init(kinds: [String], pushHandler: Bool? = nil) {
            self.kinds = kinds
            self.pushHandler = pushHandler
        }

        public var takesPushes: Bool { pushHandler ?? true }
    }

    /// Why the app's widgets or controls cannot be as declared, as sentences; empty when they can.
    var widgetProblems: [String] {
        var found: [String] = []
        if let widgets {
            if widgets.kinds.isEmpty { found.append("app \(bundleID): widgets lists no kinds; give each widget's kind string") }
            if let daily = widgets.dailyReloads, !(1...10_000).contains(daily) {
                found.append("app \(bundleID): widgets.dailyReloads is \(daily); give 1 to 10000 reloads a day")
            }
        }
        if let controls, controls.kinds.isEmpty {
            found.append("app \(bundleID): controls lists no kinds; give each control's kind string")
        }
        for (what, kinds) in [("widgets", widgets?.kinds ?? []), ("controls", controls?.kinds ?? [])] {
            for kind in Set(kinds).sorted() where kinds.count(where: { $0 == kind }) > 1 {
                found.append("app \(bundleID): \(what) lists kind \(kind) twice")
            }
        }
        return found
    }
}

/// How many times WidgetKit reloads one widget in a day. Apple: "For a widget the user frequently views, a daily budget
/// typically includes from 40 to 70 refreshes", over a 24-hour window WidgetKit tunes to the user's day, and a reload
/// while the app is in the foreground is not counted ("Keeping a widget up to date",
/// https://developer.apple.com/documentation/widgetkit/keeping-a-widget-up-to-date). apnsim counts a rolling 24 hours
/// on the world's clock and takes the low end, 40, so a provider that pushes too often sees it early; a world file's
/// `widgets.dailyReloads` changes it. A push past the budget is recorded `deferred`: WidgetKit would reload later, at a
/// time of its choosing, and apnsim does not.
public struct WidgetReloadBudget: Sendable, Hashable, Codable {
    public static let defaultDailyReloads = 40
    public var perDay: Int
    /// When each reload of the last 24 hours was spent, oldest first.
    public private(set) var spent: [Date] = []

    public init(perDay: Int = WidgetReloadBudget.defaultDailyReloads) {
        self.perDay = perDay
    }

    /// Spends one reload at `now` if the budget allows it; `false`: deferred. `free`: the reload does not count (its app
    /// is in the foreground).
    public mutating func spend(at now: Date, free: Bool = false) -> Bool {
        spent.removeAll { now.timeIntervalSince($0) >= 86_400 }
        if free { return true }
        guard spent.count < perDay else { return false }
        spent.append(now)
        return true
    }
}

/// What a `widgets` or `controls` push did on its device (the delivery record's `widgets`): which widget or control
/// kinds it reloaded, or that it was deferred past the budget and why.
public struct WidgetReload: Sendable, Hashable, Codable {
    public enum Result: String, Sendable, Hashable, Codable {
        /// The timelines (or the control) were reloaded.
        case reloaded
        /// The widgets' daily budget was spent; nothing was reloaded.
        case deferred
        /// The token names nothing this push can reload (a `controls` push to the widget token, say), or the payload
        /// lacks `content-changed`.
        case refused
    }

    /// The widget or control kinds concerned.
    public var kinds: [String]
    public var result: Result
    /// Why, when not reloaded.
    public var reason: String?
    /// The widgets' reloads a day, and how many of them the last 24 hours spent, after this push; absent for a control.
    public var dailyReloads: Int?
    public var spentToday: Int?

    public init(kinds: [String], result: Result, reason: String? = nil, dailyReloads: Int? = nil, spentToday: Int? = nil) {
        self.kinds = kinds
        self.result = result
        self.reason = reason
        self.dailyReloads = dailyReloads
        self.spentToday = spentToday
    }
}
