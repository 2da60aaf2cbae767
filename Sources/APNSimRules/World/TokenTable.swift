/// Every token a world knows, by token, in shards: a value whose copy (the validator's, made by the first read after a
/// change; docs/architecture.md) shares its shards, so a change after a copy copies one shard, not the table. With one
/// dictionary, each registration after a copy copied every token: 10,000 devices registering copied 50 million
/// entries, and a world of a million tokens a million per registration.
public struct TokenTable: Sendable, Equatable {
    private var shards: [[DeviceToken: World.TokenRecord]]
    public private(set) var count = 0

    /// 256 shards: a table of a million tokens changes about 4,000 entries' worth after a copy.
    private static let shardBits = 8

    public init() {
        shards = Array(repeating: [:], count: 1 << Self.shardBits)
    }

    /// The token's last two hex digits. Its bytes are random (Apple's tokens, apnsim's, a token set's), so they spread
    /// the tokens evenly; hashing the token for its shard hashed each token twice a lookup, twice a push (the
    /// validator's and the router's).
    private static func shard(of token: DeviceToken) -> Int {
        let utf8 = token.hex.utf8
        guard utf8.count >= 2 else { return 0 }
        let last = utf8[utf8.index(before: utf8.endIndex)], before = utf8[utf8.index(utf8.endIndex, offsetBy: -2)]
        return Int(digit(before) << 4 | digit(last))
    }

    /// The value of a lower-case hex digit (a ``DeviceToken``'s are).
    private static func digit(_ character: UInt8) -> UInt8 {
        (character <= UInt8(ascii: "9") ? character &- UInt8(ascii: "0") : character &- UInt8(ascii: "a") &+ 10) & 0xF
    }

    public subscript(token: DeviceToken) -> World.TokenRecord? {
        get { shards[Self.shard(of: token)][token] }
        set {
            let shard = Self.shard(of: token)
            if let newValue {
                if shards[shard].updateValue(newValue, forKey: token) == nil { count += 1 }
            } else if shards[shard].removeValue(forKey: token) != nil {
                count -= 1
            }
        }
    }

    /// Every record, in no particular order.
    public var values: [World.TokenRecord] {
        var all: [World.TokenRecord] = []
        all.reserveCapacity(count)
        for shard in shards { all.append(contentsOf: shard.values) }
        return all
    }

    public var isEmpty: Bool { count == 0 }

    /// The records `isIncluded` takes, in no particular order, without copying the others out first.
    public func filter(_ isIncluded: (World.TokenRecord) -> Bool) -> [World.TokenRecord] {
        var taken: [World.TokenRecord] = []
        for shard in shards {
            for record in shard.values where isIncluded(record) { taken.append(record) }
        }
        return taken
    }

    /// The records of the first `limit` tokens after `after` (from the first when `nil`), in the order of their hex: a
    /// page of `GET /v1/tokens`. One pass over the table keeps the first `limit` seen so far in a heap, so a page of a
    /// million-token world costs a pass, not a sort of the million (sorting them all held the gateway's lock for
    /// seconds, pushes waiting behind it).
    public func page(after: DeviceToken?, limit: Int) -> [World.TokenRecord] {
        guard limit > 0 else { return [] }
        var heap = TokenHeap(capacity: limit)
        for shard in shards {
            for record in shard.values where after.map({ $0.precedes(record.token) }) ?? true {
                heap.offer(record)
            }
        }
        return heap.sorted
    }
}

extension DeviceToken {
    /// Whether this token comes before `other` in the order of their hex (byte by byte; a prefix first).
    public func precedes(_ other: DeviceToken) -> Bool {
        hex.utf8.lexicographicallyPrecedes(other.hex.utf8)
    }
}

/// The first `capacity` token records offered, in hex order: a max-heap whose root is the last of them, replaced by
/// any record that comes before it.
private struct TokenHeap {
    private var records: [World.TokenRecord] = []
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        records.reserveCapacity(min(capacity, 65_536))
    }

    var sorted: [World.TokenRecord] { records.sorted { $0.token.precedes($1.token) } }

    mutating func offer(_ record: World.TokenRecord) {
        if records.count < capacity {
            records.append(record)
            var child = records.count - 1
            while child > 0, records[(child - 1) / 2].token.precedes(records[child].token) {
                records.swapAt(child, (child - 1) / 2)
                child = (child - 1) / 2
            }
        } else if record.token.precedes(records[0].token) {
            records[0] = record
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var last = parent
                if left < records.count, records[last].token.precedes(records[left].token) { last = left }
                if right < records.count, records[last].token.precedes(records[right].token) { last = right }
                guard last != parent else { return }
                records.swapAt(parent, last)
                parent = last
            }
        }
    }
}
