extension BinaryInteger where Self: FixedWidthInteger {
    /// `value` rounded toward zero and clamped to the type's range; NaN is 0.
    ///
    /// For numbers that come from outside (a JWT claim, a header, a control-API body, a world file) and are only
    /// shown or compared: `Int(_:)` traps on NaN, on infinities and on anything past the type's range, and one such
    /// request would stop the gateway for every provider.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= Double(Self.max) {
            self = Self.max
        } else if value <= Double(Self.min) {
            self = Self.min
        } else {
            self = Self(value.rounded(.towardZero))
        }
    }
}
