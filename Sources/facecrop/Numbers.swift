import ArgumentParser
import FaceCrop

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
        // Decimal only: Double would also read "0x10" and "0x1p-1" (Int reads neither).
        guard decimalNumber(text) != nil, let value = Value(text), range.contains(value) else {
            throw ValidationError("Expected \(expected) for \(option) but received '\(text)'.")
        }
        return value
    }
}
