/// A set's member or a dictionary's key with its hash worked out once. A set or dictionary that removes one hashes
/// again the members it moves up to fill the gap, and hashing a string costs a retain and a pass over its bytes each
/// time: under a plain load, a device's list of shown notifications and its memo of sent receipts spent most of their
/// time there (`perf record` of the devices, docs/speed.md).
struct Prehashed<Value: Hashable & Sendable>: Hashable, Sendable {
    let value: Value
    /// `value.hashValue`.
    let hashed: Int

    init(_ value: Value) {
        self.value = value
        hashed = value.hashValue
    }

    static func == (left: Self, right: Self) -> Bool {
        left.hashed == right.hashed && left.value == right.value
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hashed)
    }
}
