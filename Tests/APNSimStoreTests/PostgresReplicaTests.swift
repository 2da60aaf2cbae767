import APNSimRules
import APNSimStore
import Foundation
import Testing

/// What replicas share on PostgreSQL beside the record (docs/cluster.md): links, hand-offs, the word of both, and whose
/// held pushes are whose. Runs when `APNSIM_TEST_POSTGRES` names a server (`.ci/run` starts one).
@Suite("PostgreSQL store: replicas", .enabled(if: TestPostgres.isConfigured))
struct PostgresReplicaTests {
    static let token = DeviceToken("7b" + String(repeating: "0", count: 62))!

    static func delivery(_ id: String) -> Delivery {
        Delivery(id: id, apnsID: "A-\(id)", token: token, bundleID: "com.example.app", pushType: .alert, priority: 10,
                 collapseID: nil, payload: #"{"aps":{"alert":"\u0000 and \"quotes\""}}"#)
    }

    /// A store for each of `names` on `database`, each joined as that replica.
    static func replicas(_ names: [String], on database: PostgresAddress) async throws -> [PostgresStore] {
        var stores: [PostgresStore] = []
        for name in names {
            let store = try await PostgresStore.open(database)
            store.join(as: name)
            stores.append(store)
        }
        return stores
    }

    /// Replicas `home` and `other` on a fresh database; `heard`, what `listener` (one of the two) hears once it listens.
    static func withHomeAndOther(hearing listener: String,
                                 _ body: (_ home: PostgresStore, _ other: PostgresStore,
                                          _ heard: inout AsyncStream<ReplicaEvent>.Iterator) async throws -> Void) async throws {
        try await TestPostgres.withStore { _, database in
            let stores = try await replicas(["home", "other"], on: database)
            defer { for store in stores { store.close() } }
            var heard = stores[listener == "home" ? 0 : 1].replicaEvents.makeAsyncIterator()
            #expect(await heard.next() == .listening)
            try await body(stores[0], stores[1], &heard)
        }
    }

    @Test("Thousands of devices linking in one batch are told in a few notifications, each under PostgreSQL's 8,000 bytes, every device once, odd IDs as they are")
    func linksTold() async throws {
        try await Self.withHomeAndOther(hearing: "home") { home, other, heard in
            let devices = (1...3_000).map { "phone \"\($0)\" é" + String(repeating: "x", count: $0 % 40) }
            let at = Date(timeIntervalSince1970: 1_800_000_000)
            _ = try await other.apply(devices.map { .linked(device: $0, replica: "other", at: at) })
            var told: [String] = [], notifications = 0
            while told.count < devices.count, case .linked(let some, let replica)? = await heard.next() {
                #expect(replica == "other")
                #expect(ReplicaEvent.linked(devices: some, replica: replica).payload.utf8.count < 8_000)
                told += some
                notifications += 1
            }
            #expect(Set(told) == Set(devices) && told.count == devices.count)
            #expect(notifications < 40, "\(notifications) notifications for \(devices.count) devices")
        }
    }

    @Test("A link and a push handed over in one replica's batch are heard by the other, the push read in the order handed, as it was written, until a batch says it is carried out")
    func handOffs() async throws {
        try await Self.withHomeAndOther(hearing: "home") { home, other, heard in
            let handed = (1...3).map { HandOff(replica: "home", device: "d1", delivery: Self.delivery("p\($0)"), expiration: .until(Date(timeIntervalSince1970: 1_900_000_000)),
                                               uniqueID: "u\($0)", acceptedAt: Date(timeIntervalSince1970: 1_800_000_000), hops: $0 - 1) }
            _ = try await other.apply([.linked(device: "d2", replica: "other", at: Date(timeIntervalSince1970: 1_800_000_000))]
                                      + handed.map(DeliveryEvent.handedOff))
            #expect(await heard.next() == .linked(devices: ["d2"], replica: "other"))
            #expect(await heard.next() == .handedOff(replica: "home"), "one word for the three")
            #expect(try await other.handOffs(for: "other").isEmpty, "handed to home alone")
            let read = try await home.handOffs(for: "home")
            #expect(read.map { var handOff = $0; handOff.row = nil; return handOff } == handed)
            #expect(try await home.handOffs(for: "home") == read, "there until carried out")
            _ = try await home.apply(read.prefix(2).compactMap(\.row).map(DeliveryEvent.handOffDone))
            #expect(try await home.handOffs(for: "home") == Array(read.suffix(1)), "carried out once")
            #expect(try await home.links() == ["d2": "other"])

            _ = try await other.apply([.unlinked(device: "d2", replica: "someone else")])
            #expect(try await home.links() == ["d2": "other"], "only the replica linked ends the link")
            _ = try await other.apply([.unlinked(device: "d2", replica: "other")])
            #expect(await heard.next() == .unlinked(device: "d2", replica: "other"))
            #expect(try await home.links().isEmpty)
        }
    }

    @Test("A database an earlier apnsim made (schema 1) is migrated to the current schema when a replica opens it, what it held kept")
    func migrationFromOne() async throws {
        try await TestPostgres.withStore { store, database in
            _ = try await store.apply([.held(HeldPush(id: "p1", device: "d1", slot: nil, expires: nil, delivery: Self.delivery("p1")))])
            // Back to schema 1 as it was: no links, no hand-offs, held pushes nobody's.
            try await TestPostgres.execute(["DROP TABLE device_links, handoffs, replicas", "ALTER TABLE held_pushes DROP COLUMN replica",
                                            "DROP INDEX held_pushes_device", "DROP TABLE channels, broadcasts, connections",
                                            "UPDATE apnsim_schema SET version = 1"], in: database)
            let reopened = try await PostgresStore.open(database)
            defer { reopened.close() }
            #expect(try await TestPostgres.integers("SELECT version FROM apnsim_schema", in: database) == [5])
            #expect(try await reopened.deviceState().held.map(\.id) == ["p1"], "a single gateway's held push, taken back")
            #expect(try await reopened.links().isEmpty)
        }
    }

    @Test("An app one replica removed is heard by the others, its token named, and read with when it answers 410; every removed one is read again when listening again")
    func removalHeard() async throws {
        try await Self.withHomeAndOther(hearing: "other") { home, other, heard in
            let registration = DeviceRegistration(token: Self.token, device: DeviceDescriptor(id: "d1", name: "Phone"), bundleID: "com.example.app",
                                                  environment: .development)
            _ = try await home.apply([.registered(registration)])
            #expect(try await other.removedRegistrations().isEmpty)
            let at = Date(timeIntervalSince1970: 1_800_000_000)
            _ = try await home.apply([.unregistered(token: Self.token, at: at)])
            #expect(await heard.next() == .unregistered(token: Self.token.hex, replica: "home"))
            #expect(try await other.registration(of: Self.token)?.registration.unregisteredFrom == at)
            #expect(try await other.removedRegistrations().map(\.token) == [Self.token])
        }
    }

    @Test("Channels and broadcasts one replica writes are heard and read by another: a channel until deleted, broadcasts after a row in order, a channel's stored message kept past the others' five minutes, and the deleted channel's gone")
    func broadcastsShared() async throws {
        try await Self.withHomeAndOther(hearing: "other") { home, other, heard in
            let at = Date(timeIntervalSince1970: 1_800_000_000)
            let (stored, plain) = (BroadcastChannel(id: "c3Q=", bundleID: "com.example.app", environment: .development,
                                                    storagePolicy: .mostRecentMessage, createdAt: at),
                                   BroadcastChannel(id: "cGw=", bundleID: "com.example.app", environment: .production,
                                                    storagePolicy: .noStorage, createdAt: at.addingTimeInterval(1)))
            _ = try await home.apply([.channelCreated(stored), .channelCreated(plain)])
            #expect(await heard.next() == .channelCreated(id: stored.id, replica: "home"))
            #expect(await heard.next() == .channelCreated(id: plain.id, replica: "home"))
            #expect(try await other.channels() == [stored, plain])
            #expect(try await other.channel(plain.id) == plain)

            func shared(_ channel: BroadcastChannel, _ id: String, at date: Date) -> SharedBroadcast {
                SharedBroadcast(replica: "home", channel: channel.id, apnsID: id, priority: 10, expiration: .storeByDefault, payload: #"{"aps":{}}"#,
                                acceptedAt: date, storedUntil: channel.storagePolicy == .mostRecentMessage ? date.addingTimeInterval(8 * 3600) : nil)
            }
            _ = try await home.apply([.broadcastShared(shared(stored, "B-1", at: at)), .broadcastShared(shared(plain, "B-2", at: at))])
            #expect(await heard.next() == .broadcastShared(replica: "home"), "once for the batch")
            let read = try await other.broadcasts(after: 0)
            #expect(read.map(\.apnsID) == ["B-1", "B-2"])
            var first = read[0]
            first.row = nil
            #expect(first == shared(stored, "B-1", at: at), "as it was written")
            #expect(try await other.broadcasts(after: try #require(read[0].row)).map(\.apnsID) == ["B-2"])

            // Ten minutes on: the plain channel's broadcast is trimmed, the stored channel's latest kept.
            _ = try await home.apply([.broadcastShared(shared(plain, "B-3", at: at.addingTimeInterval(600)))])
            #expect(try await other.broadcasts(after: 0).map(\.apnsID) == ["B-1", "B-3"])

            _ = try await home.apply([.channelDeleted(id: stored.id)])
            #expect(await heard.next() == .broadcastShared(replica: "home"))
            #expect(await heard.next() == .channelDeleted(id: stored.id, replica: "home"))
            #expect(try await other.channel(stored.id) == nil)
            #expect(try await other.broadcasts(after: 0).map(\.apnsID) == ["B-3"], "its stored message goes with it")
        }
    }

    @Test("Each replica's control address is read by the others, the latest it announced")
    func addresses() async throws {
        try await TestPostgres.withStore { _, database in
            let stores = try await Self.replicas(["a", "b"], on: database)
            defer { for store in stores { store.close() } }
            let (a, b) = (stores[0], stores[1])
            try await a.announce(control: "http://10.0.0.1:8197", at: Date(timeIntervalSince1970: 1_800_000_000))
            try await b.announce(control: "http://10.0.0.2:8197", at: Date(timeIntervalSince1970: 1_800_000_000))
            try await a.announce(control: "http://10.0.0.9:8197", at: Date(timeIntervalSince1970: 1_800_000_100))
            #expect(try await b.controlAddresses() == ["a": "http://10.0.0.9:8197", "b": "http://10.0.0.2:8197"])
        }
    }

    @Test("A replica that is gone (its connection closed) leaves its held pushes, its hand-offs and its links to the first that looks; a live one keeps them")
    func orphansClaimed() async throws {
        try await TestPostgres.withStore { _, database in
            let stores = try await Self.replicas(["gone", "live", "claimer"], on: database)
            defer { for store in stores { store.close() } }
            let (gone, live, claimer) = (stores[0], stores[1], stores[2])
            for store in stores {
                var heard = store.replicaEvents.makeAsyncIterator()
                #expect(await heard.next() == .listening, "the ownership lock is taken before listening")
                try await store.announce(control: "http://127.0.0.1:1", at: Date(timeIntervalSince1970: 1_800_000_000))
            }
            for (store, name) in [(gone, "gone"), (live, "live")] {
                _ = try await store.apply([
                    .held(HeldPush(id: "\(name)-sent", device: "d-\(name)", slot: nil, expires: nil, delivery: Self.delivery("\(name)-sent"))),
                    .linked(device: "d-\(name)", replica: name, at: Date(timeIntervalSince1970: 1_800_000_000)),
                    .handedOff(HandOff(replica: name, device: "d-\(name)", delivery: Self.delivery("\(name)-handed"), expiration: .storeByDefault,
                                       uniqueID: nil, acceptedAt: Date(timeIntervalSince1970: 1_800_000_000))),
                ])
            }
            #expect(try await claimer.claimOrphans().isEmpty, "both live")
            gone.close()
            // The lock is freed once the session's server process has exited; ended here as a killed replica's is.
            try await TestPostgres.endSessions(ofReplica: "gone", in: database)
            #expect(try await claimer.claimOrphans() == ["gone"])
            let handed = try await claimer.handOffs(for: "claimer")
            #expect(Set(handed.map(\.delivery.id)) == ["gone-sent", "gone-handed"])
            #expect(handed.first { $0.delivery.id == "gone-sent" }?.recorded == true, "its record is written already")
            #expect(try await live.handOffs(for: "live").map(\.delivery.id) == ["live-handed"])
            #expect(try await live.links() == ["d-live": "live"])
            #expect(try await TestPostgres.integers("SELECT count(*) FROM held_pushes WHERE replica = 'gone'", in: database) == [0])
            #expect(try await claimer.claimOrphans().isEmpty, "once")
        }
    }

    @Test("A link written late does not undo a newer one")
    func lateLink() async throws {
        try await TestPostgres.withStore { store, _ in
            _ = try await store.apply([.linked(device: "d1", replica: "b", at: Date(timeIntervalSince1970: 1_800_000_010))])
            _ = try await store.apply([.linked(device: "d1", replica: "a", at: Date(timeIntervalSince1970: 1_800_000_000))])
            #expect(try await store.links() == ["d1": "b"])
        }
    }

    @Test("A token one replica registered is read by another with the replica its device is linked to; one nobody registered is nil")
    func registrationRead() async throws {
        try await TestPostgres.withStore { store, _ in
            let device = DeviceDescriptor(id: "d1", name: "Phone")
            _ = try await store.apply([.registered(DeviceRegistration(token: Self.token, device: device, bundleID: "com.example.app", environment: .development)),
                                       .linked(device: "d1", replica: "home", at: Date(timeIntervalSince1970: 1_800_000_000))])
            let found = try #require(try await store.registration(of: Self.token))
            #expect(found.registration.device == device && found.registration.bundleID == "com.example.app" && found.replica == "home")
            #expect(try await store.registration(of: DeviceToken("7c" + String(repeating: "0", count: 62))!) == nil)
        }
    }

    @Test("Each replica's held pushes are its own: taken back by it alone, released by its reset alone")
    func heldPerReplica() async throws {
        try await TestPostgres.withStore { _, database in
            let stores = try await Self.replicas(["a", "b"], on: database)
            defer { for store in stores { store.close() } }
            let (a, b) = (stores[0], stores[1])
            _ = try await a.apply([.held(HeldPush(id: "p1", device: "d1", slot: "d1\u{1F}app", expires: nil, delivery: Self.delivery("p1")))])
            _ = try await b.apply([.held(HeldPush(id: "p2", device: "d1", slot: "d1\u{1F}app", expires: nil, delivery: Self.delivery("p2")))])
            #expect(try await a.deviceState().held.map(\.id) == ["p1"])
            #expect(try await b.deviceState().held.map(\.id) == ["p2"])
            _ = try await b.apply([.releasedAll])
            #expect(try await a.deviceState().held.map(\.id) == ["p1"])
            #expect(try await b.deviceState().held.isEmpty)
        }
    }

    @Test("One stored push per slot across replicas: one stored in a slot another replica holds replaces it, its record said; the replica a device links to claims what is stored for it, each row once")
    func storedAcross() async throws {
        try await TestPostgres.withStore { _, database in
            let stores = try await Self.replicas(["a", "b", "c"], on: database)
            defer { for store in stores { store.close() } }
            let (a, b, c) = (stores[0], stores[1], stores[2])
            let at = Date(timeIntervalSince1970: 1_800_000_000)
            func stored(_ id: String, expires: Date?) -> [DeliveryEvent] {
                [.accepted(DeliveryRecord(id: id, apnsID: "A-\(id)", device: "d1", bundleID: "com.example.app", token: Self.token.hex,
                                          pushType: "alert", acceptedAt: at)),
                 .held(HeldPush(id: id, device: "d1", slot: "d1\u{1F}com.example.app", expires: expires, delivery: Self.delivery(id))),
                 .stored(id: id, reason: .offline, at: at.addingTimeInterval(1))]
            }
            _ = try await a.apply(stored("p1", expires: nil))
            _ = try await b.apply(stored("p2", expires: at.addingTimeInterval(60)))
            #expect(try await a.deviceState().held.isEmpty, "replaced by the newer, stored through b")
            let older = try #require(try await a.deliveries(matching: DeliveryFilter(apnsID: "A-p1")).first)
            #expect(older.outcome == .dropped && older.detail == HeldPush.replacedDetail(activity: false), "\(older)")
            #expect(try await b.deliveries(matching: DeliveryFilter(apnsID: "A-p2")).first?.outcome == nil)

            _ = try await c.apply([.storedClaimed(device: "d1", replica: "c")])
            _ = try await a.apply([.storedClaimed(device: "d1", replica: "a")])
            let claimed = try await c.handOffs(for: "c")
            #expect(claimed.map(\.delivery) == [Self.delivery("p2")], "the push as it was stored")
            #expect(claimed.first?.recorded == true && claimed.first?.expiration == .until(at.addingTimeInterval(60)))
            #expect(try await a.handOffs(for: "a").isEmpty, "claimed once")
            #expect(try await TestPostgres.integers("SELECT count(*) FROM held_pushes", in: database) == [0])
        }
    }
}
