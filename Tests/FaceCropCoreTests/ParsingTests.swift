import FaceCropCore
import Testing

struct ParsingTests {
    @Test(arguments: [
        ("200", Margin.pixels(200)), ("0", .pixels(0)), ("12.5", .pixels(12.5)), ("40%", .percentOfFaceHeight(40)), ("0%", .percentOfFaceHeight(0)),
    ])
    func marginParses(_ text: String, _ expected: Margin) { #expect(Margin(text) == expected) }

    @Test(arguments: ["", "-5", "abc", "%", "40%%", "nan", "inf", "20px", "0x10", "0x1p4%", " 5"])
    func marginRejects(_ text: String) { #expect(Margin(text) == nil) }

    @Test func marginPercentIsOfMeanFaceHeight() {
        #expect(Margin.percentOfFaceHeight(40).pixels(meanFaceHeight: 200) == 80)
        #expect(Margin.pixels(200).pixels(meanFaceHeight: 10) == 200)
    }

    @Test(arguments: [
        ("16:9", 16.0 / 9), ("1:1", 1), ("4:5", 0.8), ("9:16", 9.0 / 16), ("1.91:1", 1.91), ("3/2", 1.5),
    ])
    func aspectParses(_ text: String, _ value: Double) throws {
        let aspect = try #require(Aspect(text))
        #expect(abs(aspect.value(for: ImageSize(width: 1, height: 1)) - value) < 1e-12)
    }

    @Test func originalAspectIsTheImages() {
        #expect(Aspect("original")?.value(for: ImageSize(width: 300, height: 200)) == 1.5)
        #expect(Aspect("16:9")?.description == "16:9")
        #expect(Aspect("1.91:1")?.description == "1.91:1")
    }

    @Test(arguments: ["", "16", "16:", ":9", "0:1", "1:0", "-16:9", "a:b", "16:9:1", "inf:1"])
    func aspectRejects(_ text: String) { #expect(Aspect(text) == nil) }
}
