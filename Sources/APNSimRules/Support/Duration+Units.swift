extension Duration {
    /// Seconds with their fraction, for reports, rates and clocks that count in `TimeInterval`.
    public var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// Whole milliseconds, as records and the extension protocol give times.
    public var milliseconds: Int { Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000) }
}
