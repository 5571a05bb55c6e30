/// JPEG shrink-on-load: libjpeg can decode at 1/2, 1/4 or 1/8 of the size, far faster than decoding whole and
/// shrinking. The factor is the largest that still leaves the decoded image `headroom` times the target on
/// both axes, so the resize that follows has pixels to work with (libvips' `vips_thumbnail` keeps a factor of 2:
/// a block shrink alone is too sharp for a final image).
package enum ShrinkOnLoad {
    /// Headroom for an image people will look at (as libvips' thumbnail).
    package static let outputHeadroom = 2.0
    /// Headroom for the detector's copy: the scaled IDCT is a fair filter, and the copy is resized once more.
    package static let detectionHeadroom = 1.0

    /// 8, 4, 2 or 1 for decoding `size` when `target` is wanted.
    package static func factor(from size: ImageSize, to target: ImageSize, headroom: Double) -> Int {
        guard target.width > 0, target.height > 0, headroom.isFinite, headroom > 0 else { return 1 }
        return [8, 4, 2].first { f in
            Double(size.width) / Double(f) >= Double(target.width) * headroom
                && Double(size.height) / Double(f) >= Double(target.height) * headroom
        } ?? 1
    }

    /// The factor for a copy whose long side is `box`.
    package static func factor(from size: ImageSize, box: Int, headroom: Double) -> Int {
        let long = max(size.width, size.height)
        guard long > 0, box > 0 else { return 1 }
        let scale = Double(box) / Double(long)
        let target = ImageSize(width: max(1, Int((Double(size.width) * scale).rounded(.up))), height: max(1, Int((Double(size.height) * scale).rounded(.up))))
        return factor(from: size, to: target, headroom: headroom)
    }
}
