/// Conversions from floating point to fixed-width integers that never trap: `Int(x)` traps on NaN, on
/// infinities and on values beyond the type's range, all of which hostile arguments (an aspect of 1e308:1)
/// or degenerate geometry can produce.

/// `value` rounded to the nearest integer and clamped into `range`; NaN gives the lower bound.
package func clampedInt(_ value: Double, in range: ClosedRange<Int>, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int {
    guard !value.isNaN else { return range.lowerBound }
    let r = value.rounded(rule)
    if r <= Double(range.lowerBound) { return range.lowerBound }
    // Double(Int.max) rounds up to 2^63, which Int cannot hold: compare before converting.
    if r >= Double(range.upperBound) { return range.upperBound }
    return Int(r)
}

/// `value` rounded and clamped into the whole of `Int`'s range (NaN gives 0).
package func clampedInt(_ value: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) -> Int {
    value.isNaN ? 0 : clampedInt(value, in: Int.min...Int.max, rounding: rule)
}

/// The product of two non-negative sizes, or nil when it does not fit in an `Int`.
package func checkedProduct(_ a: Int, _ b: Int) -> Int? {
    let (p, overflow) = a.multipliedReportingOverflow(by: b)
    return overflow ? nil : p
}

/// A decimal number as typed ("200", "-1.5", "1e3"): Swift's `Double(_:)` also reads hexadecimal ("0x10", "0x1p-1"),
/// "inf" and "nan", which no option means to accept. Nil for those and for anything else.
package func decimalNumber(_ text: some StringProtocol) -> Double? {
    guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || "+-.eE".utf8.contains($0) }) else {
        return nil
    }
    return Double(String(text))
}
