import ArgumentParser

/// A number as typed on the command line, parsed and range-checked in `validate()`: every bad value
/// (negative, zero, NaN, infinite, beyond 64 bits, not a number at all) gets one message of one form,
/// "Expected a positive integer for --width but received '0'." (sharp's wording), and no value reaches the
/// library unchecked. Options holding one parse with `.unconditional`, so "--margin -5" is a value to judge,
/// not a missing one.
struct NumberText<Value: LosslessStringConvertible & Comparable & Sendable>: ExpressibleByArgument, CustomStringConvertible, Sendable {
    var text: String
    init(argument: String) { text = argument }
    init(_ value: Value) { text = String(describing: value) }
    var description: String { text }
    var defaultValueDescription: String { text }

    /// The value when it parses and lies in `range` (NaN never does).
    func value(_ option: String, _ range: ClosedRange<Value>, expected: String) throws -> Value {
        guard let value = Value(text), range.contains(value) else {
            throw ValidationError("Expected \(expected) for \(option) but received '\(text)'.")
        }
        return value
    }
}

/// The ranges of facecrop's numeric options, with the words their errors use.
enum Limits {
    /// libvips' VIPS_MAX_COORD: the longest side any image can have.
    static let maxSide = 10_000_000
    static let side = (range: 1...maxSide, expected: "an integer from 1 to \(maxSide)")
    static let pixels = (range: 1...1_000_000_000_000, expected: "an integer from 1 to 1000000000000")
    static let bytes = (range: 1...(1 << 40), expected: "an integer from 1 to \(1 << 40)")
    static let detectSize = (range: 32...4096, expected: "an integer from 32 to 4096")
    static let unit = (range: 0.0...1.0, expected: "a number from 0 to 1")
    static let quality = (range: 1...100, expected: "an integer from 1 to 100")
    static let jobs = (range: 1...256, expected: "an integer from 1 to 256")
    static let frames = (range: 1...10_000, expected: "an integer from 1 to 10000")
    static let count = (range: 1...1_000_000_000, expected: "a positive integer of at most 1000000000")
    static let positive = (range: Double.leastNormalMagnitude...1_000_000, expected: "a positive number of at most 1000000")
    /// Aspect ratios beyond this (either way) are refused: 10000:1 is already a line of pixels.
    static let maxAspect = 10_000.0
}
