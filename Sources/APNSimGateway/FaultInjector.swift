import APNSimRules
import Foundation
import Synchronization

/// The faults in force (`POST /v1/faults`, a scenario's `fault:` step), and the questions the gateway asks of them
/// as pushes and connections come: reject this push? reset its stream? wait before answering? end this
/// connection? Every answer names the fault, so the records it touches can say so.
public final class FaultInjector: Sendable {
    public struct FaultError: Error, CustomStringConvertible, Sendable {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// What a fault does to one push whose headers passed validation.
    public enum PushEffect: Sendable {
        case reject(Rejection, Fault)
        case reset(errorCode: Int, Fault)
        /// A `hang` at `response`: the stream is never answered and the push is not processed.
        case hang(Fault)
    }

    private struct State {
        var faults: [Fault] = []
        var nextID = 1
        /// Pushes each `goAway`/`drop` fault with `after` has seen since it was added.
        var seen: [String: Int] = [:]
        /// Recent pushes per token, for `tooManyRequests`.
        var recent: [String: [Date]] = [:]
        /// The generator of each `latency` fault's draws.
        var draws: [String: SplitMix] = [:]

        mutating func removeExpired(now: Date) {
            faults.removeAll { fault in
                guard let seconds = fault.seconds, let added = fault.addedAt else { return false }
                return now.timeIntervalSince(added) >= seconds
            }
        }

        /// Uses up one count of the fault at `index`; a fault without a count (or with a window) is not used up.
        mutating func use(_ index: Int, defaultCount: Int?) {
            guard let count = faults[index].count ?? (faults[index].seconds == nil ? defaultCount : nil) else { return }
            if count <= 1 { faults.remove(at: index) } else { faults[index].count = count - 1 }
        }
    }

    private let state = Mutex(State())
    /// How many faults are in force, readable without the lock: with none (almost always), the four questions
    /// the gateway asks of each push cost an atomic load each, not a lock.
    private let inForce = Atomic<Int>(0)

    public init() {}

    /// Runs `body` under the lock, then publishes how many faults are left.
    private func update<T>(_ body: (inout State) -> T) -> T {
        state.withLock { state in
            let result = body(&state)
            inForce.store(state.faults.count, ordering: .relaxed)
            return result
        }
    }

    /// `body` under the lock when a fault is in force; `none` at once when none is.
    private func ifAny<T>(_ none: T, _ body: (inout State) -> T) -> T {
        guard inForce.load(ordering: .relaxed) > 0 else { return none }
        return update(body)
    }

    /// Adds faults after checking every one; nothing is added if any is unusable. Returns them with their IDs.
    @discardableResult
    public func add(_ faults: [Fault], now: Date) throws(FaultError) -> [Fault] {
        for (index, fault) in faults.enumerated() {
            if let problem = fault.problem() {
                throw FaultError(faults.count > 1 ? "fault \(index + 1): \(problem)" : problem)
            }
        }
        return update { state in
            faults.map { fault in
                var fault = fault
                fault.kind = fault.resolvedKind
                fault.id = "f\(state.nextID)"
                fault.addedAt = now
                state.nextID += 1
                state.faults.append(fault)
                if fault.resolvedKind == .latency { state.draws[fault.id!] = SplitMix(seed: fault.seed ?? 1) }
                return fault
            }
        }
    }

    /// The faults in force, oldest first.
    public func pending(now: Date) -> [Fault] {
        update { state in
            state.removeExpired(now: now)
            return state.faults
        }
    }

    /// The faults in force, without dropping expired windows (for callers without a clock at hand).
    public var pending: [Fault] { state.withLock { $0.faults } }

    public func clear() {
        update { $0 = State(nextID: $0.nextID) }
    }

    /// Removes one fault; `false` if there is none with that ID.
    public func remove(id: String) -> Bool {
        update { state in
            guard let index = state.faults.firstIndex(where: { $0.id == id }) else { return false }
            state.faults.remove(at: index)
            return true
        }
    }

    private static func matches(_ fault: Fault, token: DeviceToken?, environment: APNsEnvironment) -> Bool {
        if let scoped = fault.environment, scoped != environment { return false }
        if let scoped = fault.token.flatMap(DeviceToken.init), scoped != token { return false }
        return true
    }

    /// What the faults do to a push to `token` whose headers passed validation: the first matching `reject`,
    /// `tooManyRequests` or `reset` fault, using up one of its count.
    public func pushEffect(token: DeviceToken, environment: APNsEnvironment, streamID: Int = 0, now: Date) -> PushEffect? {
        ifAny(nil) { state -> PushEffect? in
            state.removeExpired(now: now)
            for (index, fault) in state.faults.enumerated() where Self.matches(fault, token: token, environment: environment) {
                switch fault.resolvedKind {
                case .reject:
                    guard let rejection = Self.rejection(fault, now: now) else { continue }
                    state.use(index, defaultCount: 1)
                    return .reject(rejection, fault)
                case .tooManyRequests:
                    // The rate is measured over the last ten seconds, so a slow machine does not change the verdict
                    // of pushes sent in a row: at 0.1 a second, the second push within ten seconds is one too many.
                    let key = "\(fault.id ?? "")|\(token.hex)"
                    var times = state.recent[key, default: []].filter { now.timeIntervalSince($0) < Self.rateWindow }
                    times.append(now)
                    state.recent[key] = times
                    guard Double(times.count) > (fault.perSecond ?? .infinity) * Self.rateWindow else { continue }
                    return .reject(Rejection(.tooManyRequests, "more than \(fault.perSecond ?? 0) pushes a second to this device token (fault \(fault.id ?? ""))"), fault)
                case .reset:
                    if let chosen = fault.streamIds {
                        // Chosen streams: each is reset once; the fault ends with the last of them (or its count).
                        guard chosen.contains(streamID) else { continue }
                        state.faults[index].streamIds = chosen.filter { $0 != streamID }
                        if state.faults[index].streamIds?.isEmpty == true { state.faults.remove(at: index) }
                        return .reset(errorCode: fault.errorCode ?? 2, fault)
                    }
                    state.use(index, defaultCount: 1)
                    return .reset(errorCode: fault.errorCode ?? 2, fault)
                case .hang where fault.at == .hang(.response):
                    state.use(index, defaultCount: 1)
                    return .hang(fault)
                default:
                    continue
                }
            }
            return nil
        }
    }

    /// Seconds over which `tooManyRequests` measures a token's rate.
    static let rateWindow: TimeInterval = 10

    private static func rejection(_ fault: Fault, now: Date) -> Rejection? {
        guard let reasonText = fault.reason else { return nil }
        let known = RejectionReason.all.first { $0.rawValue == reasonText }
        guard let status = fault.status ?? known?.status else { return nil }
        return Rejection(RejectionReason(reasonText, status: status), "injected by fault \(fault.id ?? "")",
                         invalidSince: status == 410 ? now : nil)
    }

    /// How long to wait before answering a push to `token`, if a `latency` fault matches (using up one count).
    public func latency(token: DeviceToken?, environment: APNsEnvironment, now: Date) -> (Duration, Fault)? {
        ifAny(nil) { state -> (Duration, Fault)? in
            state.removeExpired(now: now)
            guard let index = state.faults.firstIndex(where: { $0.resolvedKind == .latency && Self.matches($0, token: token, environment: environment) })
            else { return nil }
            let fault = state.faults[index]
            var milliseconds = fault.latencyMs ?? 0
            if let maximum = fault.latencyMaxMs, maximum > milliseconds, let id = fault.id {
                milliseconds += Int(state.draws[id, default: SplitMix(seed: fault.seed ?? 1)].next() % UInt64(maximum - milliseconds + 1))
            }
            state.use(index, defaultCount: nil)
            return (.milliseconds(milliseconds), fault)
        }
    }

    /// Whether `fault` acts on a whole connection: `goAway`, `drop`, and `hang` at `window` or `silence`.
    private static func actsOnConnections(_ fault: Fault) -> Bool {
        switch fault.resolvedKind {
        case .goAway, .drop: true
        case .hang: fault.at == .hang(.window) || fault.at == .hang(.silence)
        default: false
        }
    }

    /// A connection fault (``actsOnConnections(_:)``) that falls due as a new push arrives on `environment`: its
    /// `after` count is reached or its `at` time has passed. Each push counts toward every waiting fault's `after`.
    public func connectionFault(environment: APNsEnvironment, now: Date) -> Fault? {
        ifAny(nil) { state -> Fault? in
            state.removeExpired(now: now)
            for (index, fault) in state.faults.enumerated()
            where Self.actsOnConnections(fault) && (fault.after != nil || fault.at?.time != nil)
                && Self.matches(fault, token: nil, environment: environment) {
                let id = fault.id ?? ""
                var due = false
                if let after = fault.after {
                    let seen = state.seen[id, default: 0]
                    state.seen[id] = seen + 1
                    due = seen >= after
                }
                if let at = fault.at?.time, now >= at { due = true }
                guard due else { continue }
                state.use(index, defaultCount: 1)
                return fault
            }
            return nil
        }
    }

    /// The connection faults (``actsOnConnections(_:)``) that act at once on every open connection (no `after`, no
    /// `at` time); they are used up by being returned.
    public func takeImmediateConnectionFaults() -> [Fault] {
        ifAny([]) { state in
            let immediate = state.faults.filter { Self.actsOnConnections($0) && $0.after == nil && $0.at?.time == nil }
            state.faults.removeAll { fault in immediate.contains { $0.id == fault.id } }
            return immediate
        }
    }

    /// A `hang` at `handshake` that takes the connection just accepted on `environment` (using up one count).
    public func handshakeHang(environment: APNsEnvironment, now: Date) -> Fault? {
        ifAny(nil) { state -> Fault? in
            state.removeExpired(now: now)
            guard let index = state.faults.firstIndex(where: {
                $0.resolvedKind == .hang && $0.at == .hang(.handshake) && Self.matches($0, token: nil, environment: environment)
            }) else { return nil }
            let fault = state.faults[index]
            state.use(index, defaultCount: 1)
            return fault
        }
    }

    /// MAX_CONCURRENT_STREAMS a `settings` fault imposes on new connections, if one is in force.
    public func maxConcurrentStreams(now: Date) -> Int? {
        ifAny(nil) { state in
            state.removeExpired(now: now)
            return state.faults.last { $0.resolvedKind == .settings }?.maxConcurrentStreams
        }
    }

    /// Seconds `clockSkew` faults add to the clock provider tokens are checked against.
    public func skew(now: Date) -> TimeInterval {
        ifAny(0) { state in
            state.removeExpired(now: now)
            return state.faults.filter { $0.resolvedKind == .clockSkew }.reduce(0) { $0 + ($1.skewSeconds ?? 0) }
        }
    }

    /// Whether any fault is in force (an atomic load: the router asks before looking up a push's device for one).
    public var anyInForce: Bool { inForce.load(ordering: .relaxed) > 0 }

    /// The `deviceLink` fault on `device`, if one is in force.
    public func deviceLink(_ device: String, now: Date) -> Fault? {
        ifAny(nil) { state in
            state.removeExpired(now: now)
            return state.faults.last { $0.resolvedKind == .deviceLink && $0.device == device }
        }
    }
}
