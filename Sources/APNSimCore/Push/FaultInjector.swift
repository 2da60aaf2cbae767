import Foundation
import Synchronization

/// Answers Apple's server-side failures on demand: `503 ServiceUnavailable`, `500 InternalServerError`,
/// `429 TooManyRequests`, `403 Forbidden`… — states a provider cannot cause with a request but must handle.
/// Faults queue up and each answers `count` pushes that would otherwise have passed header validation.
public final class FaultInjector: Sendable {
    /// One queued fault, as `POST /v1/faults` takes it.
    public struct Fault: Codable, Sendable, Hashable {
        /// Apple's reason string, such as `ServiceUnavailable`.
        public var reason: String
        /// The HTTP status; taken from Apple's table when omitted.
        public var status: Int?
        /// How many pushes it answers (default 1).
        public var count: Int?
        /// Only pushes to this device token.
        public var token: String?
        /// Only pushes on this environment's endpoint.
        public var environment: APNsEnvironment?

        public init(reason: String, status: Int? = nil, count: Int? = nil, token: String? = nil, environment: APNsEnvironment? = nil) {
            self.reason = reason
            self.status = status
            self.count = count
            self.token = token
            self.environment = environment
        }

        /// The rejection this fault answers with, or a sentence saying why the fault is not usable.
        public func rejection(at now: Date = Date()) -> Result<Rejection, FaultError> {
            let known = RejectionReason.all.first { $0.rawValue == reason }
            guard let status = status ?? known?.status else {
                return .failure(FaultError("reason \(reason) is not in Apple's table; give its status too, or use one of \(RejectionReason.all.map(\.rawValue).joined(separator: ", "))"))
            }
            guard (400...599).contains(status) else { return .failure(FaultError("status \(status) is not an error status (400-599)")) }
            guard (count ?? 1) > 0 else { return .failure(FaultError("count must be at least 1")) }
            if let token, DeviceToken(token) == nil { return .failure(FaultError("token \(token) is not a device token")) }
            let invalidSince: Date? = status == 410 ? now : nil
            return .success(Rejection(RejectionReason(reason, status: status), "injected with POST /v1/faults", invalidSince: invalidSince))
        }
    }

    public struct FaultError: Error, CustomStringConvertible, Sendable {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    private let queue = Mutex<[Fault]>([])

    public init() {}

    /// Queues faults after checking every one; nothing is queued if any is unusable.
    public func add(_ faults: [Fault]) throws(FaultError) {
        for fault in faults {
            if case .failure(let error) = fault.rejection() { throw error }
        }
        queue.withLock { $0 += faults }
    }

    public var pending: [Fault] { queue.withLock { $0 } }

    public func clear() { queue.withLock { $0.removeAll() } }

    /// The rejection for a push to `token` on `environment`, using up one count of the first matching fault.
    /// A 410 fault reports `now` as the moment the token stopped being valid.
    public func take(token: DeviceToken, environment: APNsEnvironment, now: Date) -> Rejection? {
        queue.withLock { faults -> Rejection? in
            guard !faults.isEmpty,
                  let index = faults.firstIndex(where: { fault in
                      (fault.token.flatMap(DeviceToken.init) ?? token) == token && (fault.environment ?? environment) == environment
                  }) else { return nil }
            let fault = faults[index]
            if (fault.count ?? 1) <= 1 { faults.remove(at: index) } else { faults[index].count = (fault.count ?? 1) - 1 }
            return try? fault.rejection(at: now).get()
        }
    }
}
