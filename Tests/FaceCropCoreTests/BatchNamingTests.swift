import FaceCropCore
import Testing

/// Batch output names from the --name template: one row per case, before any work (size nil) and after.
@Test(arguments: [
    // (template, aspect, asked, size, expected)
    ("{stem}-{width}x{height}.{ext}", Aspect.ratio(width: 16, height: 9), OutputSize?.none, ImageSize?(ImageSize(width: 1600, height: 900)), "in-1600x900.jpg"),
    ("{stem}-{width}x{height}.{ext}", .ratio(width: 16, height: 9), .exact(width: 1600, height: 900), nil, "in-1600x900.jpg"),  // exact: known before
    ("{stem}-{width}x{height}.{ext}", .ratio(width: 16, height: 9), .width(800), nil, "in-800xH16x9.jpg"),  // width: the height is not
    ("{stem}-{width}x{height}.{ext}", .ratio(width: 16, height: 9), nil, nil, "in-W16x9xH16x9.jpg"),  // the crop's own size
    ("{stem}-{width}x{height}.{ext}", .original, nil, nil, "in-WoriginalxHoriginal.jpg"),
    ("{stem}-{width}x{height}.{ext}", .ratio(width: 1.91, height: 1), .width(800), ImageSize?(ImageSize(width: 800, height: 419)), "in-800x419.jpg"),
    ("{aspect}/{stem}.{ext}", .ratio(width: 1.91, height: 1), nil, nil, "1.91x1/in.jpg"),  // ":" written "x"
    ("{stem}_{stem}.{ext}", .ratio(width: 1, height: 1), nil, nil, "in_in.jpg"),  // every occurrence
    ("fixed.{ext}", .ratio(width: 1, height: 1), nil, nil, "fixed.jpg"),  // no size in the name
    ("{stem}", .ratio(width: 1, height: 1), nil, nil, "in"),  // no extension: kept as asked
    ("{STEM}-{width}.{ext}", .ratio(width: 1, height: 1), nil, ImageSize?(ImageSize(width: 1, height: 1)), "{STEM}-1.jpg"),  // placeholders are lower case
    ("", .ratio(width: 1, height: 1), nil, nil, ""),
])
func outputNames(_ template: String, _ aspect: Aspect, _ asked: OutputSize?, _ size: ImageSize?, _ expected: String) {
    #expect(BatchNaming.outputName(template: template, stem: "in", fileExtension: "jpg", aspect: aspect, asked: asked, size: size) == expected)
}

@Test func outputNamesFillPlaceholdersOneAfterAnother() {
    let name = BatchNaming.outputName(
        template: "{stem}-{width}x{height}.{ext}", stem: "café {width}", fileExtension: "avif", aspect: .ratio(width: 1, height: 1), asked: nil,
        size: ImageSize(width: 2, height: 3))
    // The placeholders are filled in one after another, so one inside the stem is filled in too.
    #expect(name == "café 2-2x3.avif")
}

/// 64-bit FNV-1a: the published test vectors, and the shard each key falls in for 1, 2, 3 and 7 shards.
@Test(arguments: [
    // (key, hash, shards for counts 1, 2, 3, 7)
    ("", 0xcbf2_9ce4_8422_2325 as UInt64, [0, 1, 2, 2]),
    ("a", 0xaf63_dc4c_8601_ec8c, [0, 0, 1, 5]),
    ("foobar", 0x8594_4171_f739_67e8, [0, 0, 0, 6]),
    ("a.jpg", 0x4c07_9bb5_3aa9_b7c1, [0, 1, 2, 6]),
    ("sub/a.jpg", 0x3b88_7b4d_3ee5_f384, [0, 0, 2, 2]),  // the key holds the subfolder: another shard than a.jpg
    ("café.jpg", 0xc871_9590_970a_3630, [0, 0, 2, 3]),  // UTF-8 bytes
])
func shards(_ key: String, _ hash: UInt64, _ expected: [Int]) {
    #expect(Shards.fnv1a(key) == hash)
    #expect([1, 2, 3, 7].map { Shards.index(of: key, count: $0) } == expected)
}

/// A manifest's name: the input's file name and its options' hash, so runs with other options keep their own; a
/// name too long for the hash's bytes is replaced by its own hash.
@Test(arguments: [
    ("a.jpg", "", "a.jpg.cbf29ce484222325.json"),
    ("a.jpg", "a", "a.jpg.af63dc4c8601ec8c.json"),
    ("a.jpg", "foobar", "a.jpg.85944171f73967e8.json"),
    ("café.jpg", "a", "café.jpg.af63dc4c8601ec8c.json"),
    (String(repeating: "n", count: 233), "a", String(repeating: "n", count: 233) + ".af63dc4c8601ec8c.json"),  // 255 bytes
    (String(repeating: "n", count: 234), "a", "\(String(Shards.fnv1a(String(repeating: "n", count: 234)), radix: 16)).af63dc4c8601ec8c.json"),
])
func manifestNames(_ fileName: String, _ key: String, _ expected: String) {
    let name = BatchNaming.manifestName(input: fileName, optionsKey: key)
    #expect(name == expected && name.utf8.count <= 255)
}
