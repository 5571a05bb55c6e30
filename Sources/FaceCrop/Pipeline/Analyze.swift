// Reading an image and finding its faces: the decode strategy (one decode in memory, or a shrunk copy now and a
// second read for the crop), detection on the analysis-size copy, and which detected faces are kept.
import FaceCropCore

extension FaceCropper {
    /// Reads the image and finds its faces: the header, a copy at the analysis size for the detector, and
    /// (within `singlePassBytes`) the decoded pixels the crop will be cut from.
    public func analyze(_ path: String) throws(FaceCropError) -> Analysis {
        let start = ContinuousClock.now
        try InputCheck.readableFile(path, maxBytes: maxFileSize)
        return try analyze(.file(path), since: start)
    }

    /// `analyze` on an encoded image (JPEG, PNG, WebP, TIFF, GIF, HEIC/AVIF, ...) held in memory: the same result
    /// as from a file holding these bytes, without writing anything to disk. The bytes are copied once; `name`
    /// stands for the path in messages and reports.
    public func analyze(bytes: [UInt8], name: String = FaceCropper.memoryName) throws(FaceCropError) -> Analysis {
        let start = ContinuousClock.now
        if bytes.isEmpty { throw .inputEmpty(name) }
        if bytes.count > maxFileSize { throw .fileTooLarge(name, bytes: bytes.count, limit: maxFileSize) }
        let blob: VipsBlob
        do { blob = try VipsBlob(bytes) } catch { throw .imageProcessing(error.message) }
        return try analyze(.memory(blob, name: name), since: start)
    }

    private func analyze(_ input: ImageInput, since start: ContinuousClock.Instant) throws(FaceCropError) -> Analysis {
        try checkSettings()
        let path = input.name
        let header: VipsImage
        do { header = try input.open(sequential: true) } catch { throw Self.readError(input, error) }
        let stored = header.size
        guard stored.width > 0, stored.height > 0 else { throw .notAnImage(path) }
        if stored.width * stored.height > maxPixels {
            throw .tooManyPixels(path, width: stored.width, height: stored.height, limit: maxPixels)
        }
        if let whole = header.wholeFrameDecode, whole.bytes > maxDecodeMemory {
            throw .wholeFrameTooLarge(path, kind: whole.kind, width: stored.width, height: stored.height, bytes: whole.bytes, limit: maxDecodeMemory)
        }
        // Parallel jobs share one budget for whole-frame decoders, held until the analysis (and the crops cut
        // from it) are done with.
        let decodePermit = header.wholeFrameDecode.flatMap { whole in decodeBudget?.enter(whole.bytes) }
        // Decode once when the image fits the budget and cut the crop from those pixels later. For a JPEG the
        // full decode runs on a second core while a shrink-on-load decode feeds the detector (cheaper than
        // shrinking the full image), so decoding and detection overlap; other formats take the preview from
        // the decoded pixels. Larger images are read twice, sequentially (shrunk now, cropped later), so
        // memory stays bounded.
        var full: BackgroundTask<VipsImage>?
        var decoded: VipsImage?
        let preview: VipsImage
        do {
            if header.decodedBytes > singlePassBytes {
                preview = try input.thumbnail(box: self.analysisSize).inMemory()
            } else if header.loader.isJPEG {
                full = BackgroundTask { try header.inMemory() }
                let shrink = ShrinkOnLoad.factor(from: stored, box: analysisSize, headroom: ShrinkOnLoad.detectionHeadroom)
                preview = try input.open(sequential: true, shrink: shrink).preview(box: analysisSize)
            } else {
                var pixels = try header.inMemory()
                // A float TIFF of 0...255 is sRGB, whatever libvips tags it (scRGB, 0...1, would be white): told
                // from its pixels when they are decoded into memory (larger ones are taken at their word).
                if pixels.isSRGBAsFloat { pixels = try pixels.taggedSRGB() }
                decoded = pixels
                preview = try pixels.preview(box: self.analysisSize)
            }
        } catch {
            // The full decode is joined before anything is thrown, and its error, when it has one, is the one
            // reported (it read the whole file).
            var error: any Error = error
            if let full, case .failure(let fullError) = Result(catching: { try full.value() }) { error = fullError }
            if let error = error as? VipsError { throw Self.readError(input, error) }
            throw .imageProcessing("\(error)")
        }
        let loaded = ContinuousClock.now

        let orientation = header.orientation
        let analysisSize = preview.size
        let detected: Result<(faces: [DetectedFace], turn: Orientation?), FaceCropError>
        do {
            detected = .success(try facesStandingUpright(in: preview))
        } catch let error as FaceCropError {
            detected = .failure(error)
        } catch {
            detected = .failure(.imageProcessing("\(error)"))
        }
        let detectedAt = ContinuousClock.now
        if releasesDetectorMemory { detector.releaseWorkingMemory() }
        if let full {
            do { decoded = try full.value() } catch let error as VipsError { throw Self.readError(input, error) } catch {
                throw .imageProcessing("\(error)")
            }
        }
        let (found, turn) = try detected.get()
        let kept = FaceFilter.dropWeak(found, kind: detector.kind)
        let faces = Self.observations(kept, analysisSize: analysisSize)
        let pixels = decoded.map(PixelSource.decoded) ?? .encoded(input)
        var analysis = Analysis(
            path: path, storedSize: stored, orientation: orientation, loader: header.loader, detector: detector.kind, faces: faces,
            analysisSize: analysisSize, preview: preview, pixels: pixels, input: input, needsSRGB: (decoded ?? header).needsSRGB,
            highDepth: header.decodedBytes > stored.width * stored.height * header.bands,
            decodePermit: decodePermit)
        analysis.uprightOrientation = turn
        analysis.timings.load = Self.ms(start, loaded) + Self.ms(detectedAt, .now)
        analysis.timings.detect = Self.ms(loaded, detectedAt)
        return analysis
    }

    /// The faces in `image` (`FaceFilter.plausible` ones). When those found lie on their side or upside down
    /// (`FaceTurn`: typically a picture stored turned without an EXIF orientation), the picture is searched again
    /// turned to stand them upright, and what that finds, in this picture's pixels, is kept with the first
    /// search's faces it does not have (`FaceTurn.merged`); `turn` is then the orientation it was searched in.
    func facesStandingUpright(in image: VipsImage) throws -> (faces: [DetectedFace], turn: Orientation?) {
        let faces = try plausibleFaces(in: image)
        guard let turn = FaceTurn.orientation(of: faces) else { return (faces, nil) }
        let upright = try plausibleFaces(in: image.shown(as: turn)).map { FaceTurn.stored($0, shownAs: turn, size: image.size) }
        return FaceTurn.merged(first: faces, turned: upright).map { ($0, turn) } ?? (faces, nil)
    }

    /// The detector's faces in `image` that can be faces (`FaceFilter.plausible`), in its pixels.
    private func plausibleFaces(in image: VipsImage) throws -> [DetectedFace] {
        try image.withRGB8 { rgb, width, height in
            FaceFilter.plausible(
                try detector.detect(rgb: rgb, width: width, height: height, threshold: threshold), in: ImageSize(width: width, height: height))
        }
    }

    /// `FaceFilter.dropWeak`, as the best-frame finder calls it on video frames.
    static func dropWeak(_ faces: [DetectedFace], kind: DetectorKind) -> [DetectedFace] { FaceFilter.dropWeak(faces, kind: kind) }

    /// Detector pixels (origin top-left of the analysed image) → Vision-style normalized observations.
    static func observations(_ faces: [DetectedFace], analysisSize: ImageSize) -> [FaceObservation] {
        faces.map { f in
            FaceObservation(
                boundingBox: Coordinates.normalizedRect(forPixel: f.box, imageSize: analysisSize),
                confidence: f.score,
                landmarks: f.landmarks.map { points in
                    FaceLandmarks(points.map { Coordinates.normalizedPoint(forPixel: $0, imageSize: analysisSize) })
                })
        }
    }
}
