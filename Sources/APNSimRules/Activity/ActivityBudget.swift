import Foundation

/// How many priority-10 Live Activity updates an app may have applied in an hour before iOS throttles the rest
/// (Apple, "Starting and updating Live Activities with ActivityKit push notifications": priority 10 counts toward
/// a budget, priority 5 does not; `NSSupportsLiveActivitiesFrequentUpdates` raises it). Apple publishes no numbers.
/// apnsim assumes 15 an hour (the figure developers commonly report) and, its own choice, 240 for an app that sets
/// `NSSupportsLiveActivitiesFrequentUpdates`; both are settings of the device (``ActivityBudget/init(perHour:frequentPerHour:)``).
public struct ActivityBudget: Sendable, Hashable, Codable {
    public var perHour: Int
    public var frequentPerHour: Int

    public init(perHour: Int = 15, frequentPerHour: Int = 240) {
        self.perHour = perHour
        self.frequentPerHour = frequentPerHour
    }

    /// The priority-10 updates one app had applied, oldest first, within the last hour.
    public struct Spending: Sendable, Hashable, Codable {
        public private(set) var times: [Date] = []
        public init() {}

        /// How many more priority-10 updates the app may have at `now`.
        public func remaining(of budget: ActivityBudget, frequent: Bool, at now: Date) -> Int {
            ActivityBudget.remaining(of: frequent ? budget.frequentPerHour : budget.perHour, spent: times, at: now)
        }

        /// Spends one update at `now` if the budget allows it; `false`: throttled.
        public mutating func spend(of budget: ActivityBudget, frequent: Bool, at now: Date) -> Bool {
            times.removeAll { now.timeIntervalSince($0) >= 3600 }
            guard remaining(of: budget, frequent: frequent, at: now) > 0 else { return false }
            times.append(now)
            return true
        }
    }

    /// What an app has left of its budget, as its device reports it with each Live Activity receipt: the app's limit
    /// and when it spent each update of the last hour, so a reader works out what is left at any later time.
    public struct Report: Sendable, Hashable, Codable {
        public var bundleID: String
        public var perHour: Int
        public var spent: [Date]

        public init(bundleID: String, perHour: Int, spent: [Date]) {
            self.bundleID = bundleID
            self.perHour = perHour
            self.spent = spent
        }

        /// How many priority-10 updates the app may still have at `now`.
        public func remaining(at now: Date) -> Int {
            ActivityBudget.remaining(of: perHour, spent: spent, at: now)
        }
    }

    /// What is left of `limit` at `now`, after the updates `spent` within the hour before it.
    static func remaining(of limit: Int, spent: [Date], at now: Date) -> Int {
        max(limit - spent.count { now.timeIntervalSince($0) < 3600 }, 0)
    }
}
