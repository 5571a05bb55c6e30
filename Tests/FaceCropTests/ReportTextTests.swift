import FaceCropCore
import Foundation
import Testing

@testable import FaceCrop

/// How numbers and library messages reach people: rounded numbers and the C shims' messages.
struct ReportTextTests {
    /// A value that rounds to zero is 0, never -0: JSON would write "-0" and the text "-0.0".
    @Test(arguments: [-0.0001, -0.0, -1e-300, 0.0004, -0.0004999])
    func roundsToPlainZero(_ value: Double) throws {
        #expect(value.rounded(3) == 0 && value.rounded(3).sign == .plus, "\(value)")
        #expect(threeDecimals(value) == "0.0", "\(value)")
        let json = String(decoding: try JSONEncoder().encode(Shift(x: value.rounded(3), y: 0)), as: UTF8.self)
        #expect(!json.contains("-"), "\(json)")
    }

    @Test func otherValuesRoundAsBefore() {
        #expect((-0.0016).rounded(3) == -0.002 && (-1.23456).rounded(3) == -1.235 && 2.0004.rounded(3) == 2)
        #expect(threeDecimals(-0.0123) == "-0.012" && threeDecimals(0.5) == "0.5")
    }

    /// OpenCV's messages end in a newline, and some hold more, real or written backslash-n: one line each.
    @Test(arguments: [
        (
            "OpenCV(4.6.0) importer.cpp:260: error: (-210) Failed to parse ONNX model: x.onnx in function 'ONNXImporter'\n",
            "OpenCV(4.6.0) importer.cpp:260: error: (-210) Failed to parse ONNX model: x.onnx in function 'ONNXImporter'"
        ),
        ("first line\\nsecond line \\n  third\r\nfourth\n\n", "first line; second line; third; fourth"),
        ("  padded  ", "padded"),
        ("\n\\n", ""),
        ("", ""),
    ])
    func shimMessagesAreOneLine(_ raw: String, _ clean: String) {
        #expect(oneLine(raw) == clean)
    }
}
