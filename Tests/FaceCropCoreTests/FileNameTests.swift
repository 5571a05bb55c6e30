import FaceCropCore
import Testing

struct FileNameTests {
    @Test(
        arguments: [
            ([0x63, 0x61, 0x66, 0xC3, 0xA9], "café", true),  // UTF-8
            ([0x63, 0x61, 0x66, 0xE9, 0x2E, 0x6A, 0x70, 0x67], "caf\\xe9.jpg", false),  // Latin-1
            ([0xFF], "\\xff", false),
            ([0xC3], "\\xc3", false),  // cut short
            ([0xE2, 0x82, 0x41], "\\xe2\\x82A", false),  // a broken three-byte sequence, then ASCII
            ([0xED, 0xA0, 0x80], "\\xed\\xa0\\x80", false),  // an encoded surrogate
            ([0xF0, 0x9F, 0x98, 0x80, 0x0A], "😀\n", true),
            ([], "", true),
        ] as [([UInt8], String, Bool)])
    func namesAreShownWithTheirStrayBytesEscaped(_ bytes: [UInt8], _ shown: String, _ valid: Bool) {
        #expect(FileName.shown(bytes) == shown)
        #expect((FileName.text(bytes) != nil) == valid)
        if valid { #expect(FileName.text(bytes) == shown) }
    }
}
