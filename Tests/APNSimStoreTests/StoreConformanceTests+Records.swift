import APNSimRules
import APNSimRuntime
import APNSimStore
import Foundation
import Testing

extension StoreConformanceTests {
    @Test("Random sends, trimmed by count and age, read alike through every filter", arguments: candidates)
    func sends(candidate: Candidate) async throws {
        try await Self.withStores(candidate) { fileStore, candidateStore in
            let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
            var limits = RecordLimits()
            limits.sends = 50
            limits.maximumAge = 30
            let recount = candidateStore.isShared  // both trim as the candidate does
            let recorders = [SendRecorder(store: fileStore, limits: limits, clock: .manual(clock), recount: recount),
                             SendRecorder(store: candidateStore, limits: limits, clock: .manual(clock), recount: recount)]
            var random = SplitMix(seed: 7)
            for step in 0..<600 {
                if Int.random(in: 0..<3, using: &random) == 0 { clock.advance(by: Double(Int.random(in: 1...64, using: &random)) / 64) }
                var send = StoreTests.record(token: Self.tokens.randomElement(using: &random)!,
                                             topic: Self.bundles.randomElement(using: &random)!,
                                             status: [200, 200, 400, 410].randomElement(using: &random)!, at: clock.now.timeIntervalSince1970)
                send.apnsID = "A-\(step % 30)"
                if Bool.random(using: &random) { send.uniqueID = "u-\(step % 9)" }
                if step % 97 == 0 { send.payload = "{\"nul\":\"\u{0}\",\"quote\":\"\\\"\"}" }  // kept byte for byte
                for recorder in recorders { recorder.record(send) }
                if Int.random(in: 0..<25, using: &random) == 0 {
                    for recorder in recorders { try await recorder.flush() }
                    try await Self.compareSends(fileStore, candidateStore, at: clock.now)
                }
                if step == 300 { for recorder in recorders { try await recorder.deleteAll() } }
            }
            for recorder in recorders { try await recorder.flush() }
            try await Self.compareSends(fileStore, candidateStore, at: clock.now)
            #expect(recorders[0].dropped == recorders[1].dropped)
            #expect(recorders[1].dropped > 0, "the limits were reached")
        }
    }

    static func compareSends(_ file: any Store, _ candidate: any Store, at: Date) async throws {
        var filters = [SendFilter(limit: 1_000), SendFilter(limit: 3), SendFilter(token: "AA01"), SendFilter(apnsID: "A-4"),
                       SendFilter(topic: bundles[1], status: 410), SendFilter(after: at - 5), SendFilter(token: "nobody"),
                       SendFilter(token: "a\u{0}b")]
        var unique = SendFilter()
        unique.uniqueID = "U-3"
        filters.append(unique)
        var window = SendFilter(limit: 1_000)
        window.since = at - 10
        window.before = at - 2
        filters.append(window)
        for filter in filters {
            let (expected, found) = (try await file.sends(matching: filter), try await candidate.sends(matching: filter))
            // IDs are each store's own numbering; everything else must match.
            #expect(found.map { var send = $0; send.id = nil; return send } == expected.map { var send = $0; send.id = nil; return send },
                    "\(filter)")
        }
        let counts = (try await file.sendCount(), try await candidate.sendCount())
        #expect(counts.0 == counts.1)
    }

    @Test("Registrations and held pushes come back for a restart as a file keeps them: a slot holds one, released ones go",
          arguments: candidates.filter { $0 != .memory })
    func restartState(candidate: Candidate) async throws {
        try await Self.withStores(candidate) { fileStore, candidateStore in
            let recorders = [DeliveryRecorder(store: fileStore), DeliveryRecorder(store: candidateStore)]
            var random = SplitMix(seed: 11)
            let tokens = (0..<6).map { DeviceToken(String(repeating: String(format: "%02x", $0 + 1), count: 32))! }
            for step in 0..<400 {
                let token = tokens.randomElement(using: &random)!
                let device = DeviceDescriptor(id: "d\(tokens.firstIndex(of: token)! % 3)", name: "Device \(step % 3)")
                let event: DeliveryEvent
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<2:
                    event = .registered(DeviceRegistration(token: token, device: device, bundleID: Self.bundles.randomElement(using: &random)!,
                                                           environment: Bool.random(using: &random) ? .development : .production))
                case 2:
                    event = .unregistered(token: token, at: Date(timeIntervalSince1970: 1_800_000_000 + Double(step)))
                case 3..<7:
                    let delivery = Delivery(id: "p\(step)", apnsID: "A\(step)", token: token, bundleID: Self.bundles[0], pushType: .alert,
                                            priority: 10, collapseID: nil, payload: "{\"n\":\(step)}")
                    let slot = Bool.random(using: &random) ? "\(device.id)/\(Self.bundles[step % 2])" : nil
                    let expires = Bool.random(using: &random) ? Date(timeIntervalSince1970: 1_800_000_100 + Double(step)) : nil
                    event = .held(HeldPush(id: Int.random(in: 0..<8, using: &random) == 0 ? "p\(max(step - 3, 0))" : "p\(step)",
                                           device: device.id, slot: slot, expires: expires, delivery: delivery))
                case 7..<9:
                    event = .released(id: "p\(Int.random(in: max(step - 20, 0)...step, using: &random))")
                default:
                    event = step % 50 == 9 ? .releasedAll : .released(id: "never")
                }
                for recorder in recorders { recorder.record(event) }
                if Int.random(in: 0..<15, using: &random) == 0 {
                    for recorder in recorders { try await recorder.flush() }
                    let (expected, found) = (try await fileStore.deviceState(), try await candidateStore.deviceState())
                    #expect(found.held == expected.held, "held pushes at step \(step)")
                    #expect(Set(found.registrations) == Set(expected.registrations), "registrations at step \(step)")
                }
            }
        }
    }

    @Test("Interactions and summaries read alike through their filters", arguments: candidates)
    func interactionsAndSummaries(candidate: Candidate) async throws {
        try await Self.withStores(candidate) { fileStore, candidateStore in
            for number in 0..<30 {
                let at = Date(timeIntervalSince1970: 1_800_000_000 + Double(number / 3))
                let interaction = InteractionRecord(id: "i\(number % 25)", device: Self.devices[number % 3], bundleID: Self.bundles[number % 2],
                                                    apnsID: "A\(number % 4)", deliveryID: "d\(number)", notification: "n\(number)",
                                                    action: InteractionRecord.defaultAction, appState: "background", delivered: true,
                                                    detail: "tapped \(number)", at: at)
                let item = SummaryDelivery.Item(apnsID: "A\(number)", deliveryID: "d\(number)", bundleID: Self.bundles[0], title: "T",
                                                body: nil, relevanceScore: 0.5, arrived: at)
                let summary = SummaryDelivery(id: "s\(number % 20)", device: Self.devices[number % 3], scheduledFor: nil, at: at,
                                              notifications: [item], detail: "summary \(number)")
                for store in [fileStore, candidateStore] {
                    try await store.record(interaction, token: number % 5 == 0 ? nil : "AA0\(number % 2)")
                    try await store.record(summary)
                }
            }
            for filter in [InteractionFilter(), InteractionFilter(device: "ipad"), InteractionFilter(token: "aa01"),
                           InteractionFilter(bundleID: Self.bundles[1], apnsID: "A3"), InteractionFilter(limit: 2)] {
                #expect(try await candidateStore.interactions(matching: filter) == fileStore.interactions(matching: filter), "\(filter)")
            }
            for (device, limit) in [(nil, 100), ("watch", 100), (nil, 3), ("nobody", 10)] as [(String?, Int)] {
                #expect(try await candidateStore.summaries(device: device, limit: limit) == fileStore.summaries(device: device, limit: limit))
            }
            try await candidateStore.deleteAllDeliveries()
            #expect(try await candidateStore.interactions(matching: InteractionFilter()).isEmpty)
            #expect(try await candidateStore.summaries(device: nil, limit: 100).isEmpty)
        }
    }
}

extension StoreConformanceTests {
    /// A push has one type, so a Live Activity's change and a widget reload share the record's one column for what a
    /// push changed (`ReceiptChange`); each store reads it back as the push's type says.
    @Test("A widget reload and a Live Activity's change read back by the push's type", arguments: Candidate.allCases.filter { candidates.contains($0) })
    func receiptChanges(candidate: Candidate) async throws {
        try await Self.withStores(candidate) { fileStore, candidateStore in
            let at = Date(timeIntervalSince1970: 1_800_000_000)
            let reload = WidgetReload(kinds: ["com.example.app.score"], result: .deferred, reason: "spent", dailyReloads: 40, spentToday: 40)
            let change = ActivityChange(id: "A1", event: .update, result: .applied)
            let events: [DeliveryEvent] = [
                .accepted(DeliveryRecord(id: "w", apnsID: "W", device: "d", bundleID: "com.example.app", token: "aa01", pushType: "widgets", acceptedAt: at)),
                .accepted(DeliveryRecord(id: "l", apnsID: "L", device: "d", bundleID: "com.example.app", token: "aa02", pushType: "liveactivity", acceptedAt: at)),
                .receipt(id: "w", outcome: .widget, content: nil, detail: "deferred", at: at, activity: ReceiptChange(EncodedJSON(reload))),
                .receipt(id: "l", outcome: .liveactivity, content: nil, detail: "applied", at: at, activity: ReceiptChange(EncodedJSON(change))),
            ]
            for store in [fileStore, candidateStore] {
                let recorder = DeliveryRecorder(store: store)
                recorder.record(contentsOf: events)
                try await recorder.flush()
                let records = try await recorder.deliveries(matching: DeliveryFilter())
                #expect(records.first { $0.id == "w" }?.widgets == reload)
                #expect(records.first { $0.id == "w" }?.activity == nil)
                #expect(records.first { $0.id == "l" }?.activity == change)
                #expect(records.first { $0.id == "l" }?.widgets == nil)
                #expect(records.allSatisfy { $0.unreadable == nil })
            }
        }
    }
}
