extension Dictionary {
    /// Runs `change` on the value for `key` where the dictionary stores it; `nil` when there is none.
    ///
    /// `dictionary[key]?.field = x` is not in place: the standard library's optional `subscript(key:)` modify accessor
    /// moves the value out into an `Optional` and, once changed, copies it back in (`if let value { initialize(to:
    /// value) }`), so each such change of a large struct retains and releases every field it holds. `values[index]`
    /// yields the stored value itself. (perf over `Benchmarks/broadcast.sh`: a `Device` copied and destroyed at each
    /// lookup a broadcast made.)
    @inlinable
    public mutating func inPlace<Result>(_ key: Key, _ change: (inout Value) throws -> Result) rethrows -> Result? {
        guard let index = index(forKey: key) else { return nil }
        return try change(&values[index])
    }

    /// Runs `body` on each value where it is stored: `for value in dictionary.values` copies each value it hands out.
    /// (A broadcast looks at every Live Activity of every device: as copies, most of the time it took to choose a
    /// broadcast's activities.)
    @inlinable
    public mutating func forEachInPlace(_ body: (inout Value) throws -> Void) rethrows {
        var index = startIndex
        while index != endIndex {
            try body(&values[index])
            formIndex(after: &index)
        }
    }
}
