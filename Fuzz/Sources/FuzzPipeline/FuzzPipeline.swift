// libFuzzer entry point: each input is an image file put through facecrop's real pipeline, load → detect →
// plan → crop → write (and the capture-quality measurements), as `facecrop` and `facecrop detect --quality`
// run it. Any thrown FaceCropError is a clean rejection; a crash, sanitizer report, leak or hang is a finding.
import FaceCrop
import FaceCropCore
import Glibc

/// Inputs and outputs live in shared memory, one folder per process (libFuzzer's -jobs forks).
private let folder: String = {
    let path = "/dev/shm/facecrop-fuzz-\(getpid())"
    mkdir(path, 0o700)
    atexit {
        for name in ["input", "output.jpg", "output.png", "output.webp", "output.tif"] { unlink(folder + "/" + name) }
        rmdir(folder)
    }
    return path
}()

private struct Tools: Sendable {
    let centerface: FaceDetector
    let yunet: FaceDetector
    let haar: FaceDetector
    let quality: QualityAnalyzer
}

private let tools: Tools = {
    do {
        return Tools(
            centerface: try FaceDetector(kind: .centerface), yunet: try FaceDetector(kind: .yunet), haar: try FaceDetector(kind: .haar),
            quality: try QualityAnalyzer())
    } catch {
        fatalError("fuzz harness set-up failed: \(error)")
    }
}()

/// The options come from the input's length, so a mutation of the image bytes alone keeps them and the corpus
/// still spreads over detectors, policies and output formats.
private func configuration(_ size: Int) -> (FaceCropper, CropOptions, ext: String, quality: Bool) {
    var n = size
    func pick<T>(_ values: [T]) -> T {
        defer { n /= values.count }
        return values[n % values.count]
    }
    let detector = pick([tools.centerface, tools.centerface, tools.yunet, tools.haar])
    // A small detection size keeps executions fast; a 4-megapixel limit keeps decompression bombs cheap
    // (the limit itself is tested in Tests/).
    var cropper = FaceCropper(detector: detector, analysisSize: pick([64, 128, 200]), maxPixels: 4_000_000)
    cropper.singlePassBytes = pick([64 << 20, 0])  // 0: the two-pass path that re-reads the file for the crop
    var options = CropOptions()
    options.aspect = pick([.ratio(width: 1, height: 1), .ratio(width: 16, height: 9), .ratio(width: 4, height: 5), .original])
    options.strategy = pick([CropStrategy.all, .largest, .average])
    options.noFace = pick([NoFacePolicy.attention, .center])
    options.margin = pick([Margin.pixels(20), .percentOfFaceHeight(40), .pixels(0)])
    options.size = pick([nil, OutputSize.exact(width: 48, height: 32), .width(40)])
    options.strip = pick([false, true])
    let format = pick(["jpg", "png", "webp", "tif"])
    return (cropper, options, format, pick([false, true]))
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = folder + "/input"
    guard let file = fopen(input, "wb") else { fatalError("cannot write \(input)") }
    guard fwrite(data, 1, size, file) == size, fclose(file) == 0 else { fatalError("cannot write \(input)") }
    let (cropper, options, ext, quality) = configuration(size)
    let output = folder + "/output." + ext
    do {
        let analysis = try cropper.analyze(input)
        if quality { _ = try tools.quality.assess(analysis) }
        let crop = try cropper.plan(analysis, options: options)
        _ = try cropper.write(analysis, crop: crop.rect, to: output, options: options)
        unlink(output)
    } catch {
        // A clean rejection: the error must read as a sentence (what the CLI prints after "Error: ").
        precondition(!error.description.isEmpty)
    }
    return 0
}
