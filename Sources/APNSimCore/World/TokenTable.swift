/// Every token a world knows, by token, in shards: a value whose copy (the validator's, published after every change;
/// docs/architecture.md) shares its shards, so a change after a copy copies one shard, not the table. With one
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

    private static func shard(of token: DeviceToken) -> Int {
        // The hash's top bits: a dictionary places its keys by the low ones, which would crowd each shard's buckets.
        Int(UInt(bitPattern: token.hashValue) >> (UInt.bitWidth - shardBits))
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
}
