import FaceCropCore
import Testing

/// The cut-face warning: "cannot fit" only when the faces the strategy frames do not fit; otherwise it names
/// the strategy that left the cut faces out (the crop report's `regionFits` says the same).
@Test(arguments: [
    // (cut, faces, strategy, regionFits, expected)
    ([Int](), 4, CropStrategy.all, false, nil as String?),
    ([2, 3], 4, .all, false, "Warning: in.jpg: faces #3, #4 of 4 cannot fit in a 16:9 crop and are cut."),
    ([0], 2, .all, false, "Warning: in.jpg: face #1 of 2 cannot fit in a 16:9 crop and is cut."),
    ([1], 3, .largest, true, "Warning: in.jpg: face #2 of 3 is cut from the 16:9 crop: --strategy largest frames only the largest face."),
    ([0, 2], 3, .average, true, "Warning: in.jpg: faces #1, #3 of 3 are cut from the 16:9 crop: --strategy average frames the faces around their average."),
    ([0, 2], 3, .largest, false, "Warning: in.jpg: faces #1, #3 of 3 cannot fit in a 16:9 crop and are cut."),
    (
        Array(0..<10), 12, .all, false, "Warning: in.jpg: faces #1, #2, #3, #4, #5, #6, #7, #8, #9, #10 of 12 cannot fit in a 16:9 crop and are cut."
    ),
    (
        Array(stride(from: 1, to: 360, by: 2)), 479, .all, false,
        "Warning: in.jpg: faces #2, #4, #6, #8, #10, #12, #14, #16, #18, #20 and 170 more of 479 cannot fit in a 16:9 crop and are cut."
    ),
])
func cutFaceWarnings(_ cut: [Int], _ faces: Int, _ strategy: CropStrategy, _ regionFits: Bool, _ expected: String?) {
    #expect(CutFaces.warning(input: "in.jpg", cut: cut, faceCount: faces, aspect: "16:9", strategy: strategy, regionFits: regionFits) == expected)
}
