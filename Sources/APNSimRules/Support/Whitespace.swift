extension StringProtocol {
    /// The text without leading and trailing spaces and tabs: the whitespace HTTP allows around a field value
    /// (RFC 9110 §5.5). Pure Swift: Foundation's `trimmingCharacters(in:)` goes through NSString on Linux and
    /// showed up as the top cost of token auth in `Benchmarks/provider.sh` profiles.
    var trimmingSpacesAndTabs: SubSequence {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
