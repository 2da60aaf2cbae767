import Foundation
import Synchronization
import Testing

/// A suite whose tests start gateways, devices, media servers, extension builds or `apnsim` processes: at most a few
/// of them run at once, however many the suite has.
///
/// Swift Testing starts every test of the run at once. Three hundred tests each starting a gateway and a device on
/// two cores made a TLS handshake take longer than the gateway's 10 s handshake timeout, and every test slower; a few
/// at a time, each is done in a moment and the whole run takes no longer (README, Contributing). Unit tests need no
/// trait: they hold no sockets or processes and end at once.
///
/// ```swift
/// @Suite("Delivery to devices", .endToEnd)
/// struct DeviceDeliveryTests { … }
/// ```
public struct EndToEndTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// Each test case takes a slot; a suite does not (its tests do), so no slot is ever held while waiting for one.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite || testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await EndToEndSlots.shared.withSlot(function)
    }
}

extension Trait where Self == EndToEndTrait {
    /// Runs the suite's tests a few at a time beside the rest of the run (``EndToEndTrait``).
    public static var endToEnd: Self { Self() }
}

/// The slots end-to-end tests take, first come first served.
final class EndToEndSlots: Sendable {
    /// Three per core: the quickest whole run on the 2-core development machine (6 slots: 23.5 s; 2: 35 s; 12: 24 s;
    /// every test at once: 28 s). Enough that one test waiting on a process or a build leaves the cores busy.
    static let shared = EndToEndSlots(count: max(2, 3 * ProcessInfo.processInfo.activeProcessorCount))

    private struct State {
        var free: Int
        var waiting: [(id: UUID, continuation: CheckedContinuation<Void, any Error>)] = []
    }
    private let state: Mutex<State>

    init(count: Int) {
        state = Mutex(State(free: count))
    }

    func withSlot(_ body: @Sendable () async throws -> Void) async throws {
        try await take()
        defer { give() }
        try await body()
    }

    private func take() async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Cancelled already: the cancellation handler may have looked for this waiter before it was added.
                let now = state.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if state.free > 0 {
                        state.free -= 1
                        return .success(())
                    }
                    state.waiting.append((id, continuation))
                    return nil
                }
                if let now { continuation.resume(with: now) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// A slot given back goes to the test waiting longest, or is free again.
    private func give() {
        let next = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst().continuation
        }
        next?.resume()
    }
}
