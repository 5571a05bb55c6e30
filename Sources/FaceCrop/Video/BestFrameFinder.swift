// Best frame of a video or Live Photo: one thread decodes small copies of the frames needed, this one registers
// consecutive frames and tracks stability, two workers screen the frames to analyse; after decoding, the
// finalists are scored in full, then the choice (FaceCropCore.FrameSelection), and the winner, whose decoded
// picture was kept, written at full resolution, cropped or whole, through the image pipeline. `stability`
// (Stability.swift) runs the registration alone.
import FaceCropCore
import Synchronization

/// Picks the best frame of a video or Live Photo, as `facecrop best-frame` does: `analyze` decodes small copies
/// of the frames to look at, tracks how steady the picture is, screens their faces, scores the best few frames'
/// faces in full, and chooses (`FrameSelection`); `write` writes the chosen frame at full resolution (from the decoded picture kept for
/// it), cropped around its faces or whole. `stability` measures the steadiness alone.
///
/// ```swift
/// let finder = BestFrameFinder(cropper: cropper, quality: try QualityAnalyzer(landmarks: nil))
/// let analysis = try finder.analyze("clip.mov")
/// let output = try finder.write(analysis, to: "best.jpg", crop: CropOptions(), cropped: true)
/// ```
public struct BestFrameFinder: Sendable {
    /// Detects faces in the finalists (its detector, threshold and analysis size) and crops the chosen one.
    public let cropper: FaceCropper
    /// Scores the faces of each frame.
    public let quality: QualityAnalyzer
    /// How many frames, stability, and the limits on the video.
    public var options: VideoOptions

    /// A finder with `cropper`'s detector and settings and `quality`'s model.
    public init(cropper: FaceCropper, quality: QualityAnalyzer, options: VideoOptions = VideoOptions()) {
        self.cropper = cropper
        self.quality = quality
        self.options = options
    }

    /// The video and still of an input: a video (with its still beside it, if any), or a still whose video
    /// sits beside it with the same name. Without `includeStill`, the still is left out either way.
    public static func resolve(_ input: String, includeStill: Bool = true) throws(VideoError) -> VideoInput {
        do { try InputCheck.readableFile(input) } catch { throw .image(error) }
        let name = input.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? input
        let dot = name.lastIndex(of: ".")
        let ext = dot.map { String(name[name.index(after: $0)...]).lowercased() } ?? ""
        let stem = dot.map { String(input.dropLast(name.distance(from: $0, to: name.endIndex))) } ?? input
        func siblings(_ exts: [String]) -> [String] { exts.flatMap { [stem + "." + $0, stem + "." + $0.uppercased()] } }
        func firstReadable(_ paths: [String]) -> String? {
            paths.first { (try? InputCheck.readableFile($0)) != nil && !OutputCheck.sameFile($0, input) }
        }
        if VideoOptions.stillExtensions.contains(ext) {
            let candidates = siblings(VideoOptions.videoExtensions)
            guard let video = firstReadable(candidates) else { throw .stillWithoutVideo(input, looked: candidates) }
            return VideoInput(video: video, still: includeStill ? input : nil)
        }
        return VideoInput(video: input, still: includeStill ? firstReadable(siblings(VideoOptions.stillExtensions)) : nil)
    }

    /// A frame size of the video's display aspect with this long side.
    static func frameSize(for info: VideoInfo, longSide: Int) -> ImageSize {
        let scale = Double(longSide) / Double(max(info.width, info.height))
        return ImageSize(width: max(8, Int((Double(info.width) * scale).rounded())), height: max(8, Int((Double(info.height) * scale).rounded())))
    }

    /// Long side of the greyscale frames registered (shifts are then scaled to the analysis scale).
    static let registrationSide = 256

    /// Opens the video and checks it against the limits.
    static func open(_ video: String, options: VideoOptions, maxPixels: Int) throws(VideoError) -> VideoDecoder {
        let decoder = try VideoDecoder(video, maxPixels: maxPixels)
        let info = decoder.info
        if info.duration > options.maxDuration { throw .tooLong(video, seconds: info.duration, limit: options.maxDuration) }
        if options.everyFrame, info.frameCount > options.maxFrames {
            throw .tooManyFrames(video, frames: info.frameCount, limit: options.maxFrames)
        }
        return decoder
    }

    /// One registered frame: its translation from the previous frame (in analysis pixels) and the stability
    /// of the scene there.
    struct Registered {
        var frame: VideoFrame
        var shift: Shift?
        var response: Double?
        var drift: Shift?
        var stable: Bool
        /// A frame to analyse (a sample, or any frame in every-frame mode).
        var isSample: Bool
    }

    /// A frame to analyse is also registered with its window's first frame in one step while the summed drift is
    /// under twice the stability threshold and this share of the analysis size: there the two frames share most
    /// of the picture, and the small shifts summed fall short (`StabilityTracker.drift`). Past it the scene is far
    /// from stable, and each shift is large enough for phase correlation to measure it nearly whole.
    static let oneStepShare = 0.1

    /// What the decoding thread hands over: a frame, whether it follows the previous one, whether to analyse it.
    struct Decoded: Sendable {
        var frame: VideoFrame
        var jumped: Bool
        var isSample: Bool
    }

    /// Which frames to decode. Used by the decoding thread only.
    final class FramePlan: @unchecked Sendable {
        let samples: [Double]?
        let fps: Double
        let history: Int
        let limit: Int
        private var next = 0, analysed = 0

        init(samples: [Double]?, fps: Double, history: Int, limit: Int) {
            (self.samples, self.fps, self.history, self.limit) = (samples, fps, history, limit)
        }

        var tolerance: Double { 0.5 / fps }

        /// What to read after `frame` (seek to, RGB from), or nil to stop.
        func request(after frame: VideoFrame?) -> (at: Double?, rgbFrom: Double)? {
            guard let samples else { return analysed < limit ? (nil, 0) : nil }
            if let frame, frame.time >= samples[min(next, samples.count - 1)] - tolerance {
                while next < samples.count, samples[next] <= frame.time + tolerance { next += 1 }
            }
            guard next < samples.count else { return nil }
            let windowStart = samples[next] - Double(history) / fps
            if let frame, frame.time >= windowStart - 1.5 / fps { return (nil, samples[next]) }
            return (max(0, windowStart), samples[next])
        }

        /// The frames sampled mode registers and must decode: each sample, the frame before it (its shift) and the
        /// first of its window (its drift). Others are decoded only when other frames refer to them; the drift
        /// over a window is the same, measured in fewer, longer steps.
        var needed: [Double] {
            (samples ?? []).flatMap { [$0, $0 - 1 / fps, $0 - Double(history) / fps] }.filter { $0 >= -tolerance }
        }

        func decoded(_ frame: VideoFrame, request: (at: Double?, rgbFrom: Double)) -> Decoded {
            let isSample = samples == nil || frame.time >= request.rgbFrom - tolerance
            if isSample { analysed += 1 }
            return Decoded(frame: frame, jumped: request.at != nil, isSample: isSample)
        }
    }

    /// Decodes frames on a thread of its own, up to 32 frames ahead of `body`, which runs here; registers each
    /// with the one before and tracks stability. Sampled mode (`samples`): each sample comes with the
    /// `history` frames before it, registered too, so its stability is Apple's test over the frames just
    /// before it; frames between windows are skipped (decoded only as far as the codec needs). Every-frame
    /// mode (nil): every frame, at most `limit`. RGB at `rgb` is made for samples only. Returns milliseconds
    /// spent waiting for the decoder.
    static func forEachFrame(
        _ decoder: VideoDecoder, samples: [Double]?, options: VideoOptions, rgb: ImageSize?, analysisScale: Double,
        keep: Bool = false, _ body: (Registered) throws(VideoError) -> Void
    ) throws(VideoError) -> Double {
        let info = decoder.info
        let plan = FramePlan(samples: samples, fps: info.fps > 0 ? info.fps : 30, history: options.historyLength, limit: options.maxFrames)
        let grey = frameSize(for: info, longSide: registrationSide)
        let scale = analysisScale / Double(registrationSide)
        // Frames kept whole (`keep`, every-frame mode) hold about 3 MB each at 1080p: a shorter queue then.
        let queue = FrameQueue<Decoded>(capacity: keep && samples == nil ? 8 : 32)
        if samples != nil { try decoder.decodeOnly(plan.needed) }
        let producer = BackgroundTask<Void> {
            defer { queue.finish() }
            var last: VideoFrame?
            while let request = plan.request(after: last),
                let frame = try decoder.read(at: request.at, rgbFrom: request.rgbFrom, rgb: rgb, grey: grey, keep: keep)
            {
                last = frame
                guard queue.push(plan.decoded(frame, request: request)) else { return }
            }
        }
        var tracker = StabilityTracker(historyLength: options.historyLength, threshold: options.stabilityThreshold)
        var previous: VideoFrame?
        // The frame each shift in the tracker's window starts at, greyscale only: the first is registered with
        // each frame to analyse, for the window's drift in one step.
        var starts: [VideoFrame] = []
        var waited = 0.0
        do throws(VideoError) {
            while true {
                let waitStart = ContinuousClock.now
                guard let item = queue.pop() else { break }
                waited += FaceCropper.ms(waitStart, .now)
                let frame = item.frame
                // Past the limit whatever the container said about its duration.
                if frame.time > options.maxDuration + 1 / plan.fps {
                    throw VideoError.tooLong(decoder.path, seconds: frame.time, limit: options.maxDuration)
                }
                if item.jumped || previous.map({ frame.time <= $0.time }) == true {
                    // Not the frame after the previous one: start the history afresh.
                    tracker = StabilityTracker(historyLength: options.historyLength, threshold: options.stabilityThreshold)
                    previous = nil
                    starts = []
                }
                var registered = Registered(frame: frame, stable: false, isSample: item.isSample)
                if let previous {
                    let measured = try Registration.shift(from: previous, to: frame)
                    let shift = Shift(x: measured.shift.x * scale, y: measured.shift.y * scale)
                    // Sampled, frames no other refers to may be skipped: this shift spans the frames since the last.
                    tracker.add(shift, span: samples == nil ? 1 : Int(((frame.time - previous.time) * plan.fps).rounded()))
                    starts.append(VideoFrame(time: previous.time, grey: previous.grey, greySize: previous.greySize))
                    starts.removeFirst(starts.count - tracker.history.count)
                    if item.isSample, tracker.isFull, starts.count > 1,
                        tracker.summedDrift.manhattan < min(2 * tracker.threshold, Self.oneStepShare * analysisScale)
                    {
                        let window = try Registration.shift(from: starts[0], to: frame).shift
                        tracker.measure(Shift(x: window.x * scale, y: window.y * scale))
                    }
                    (registered.shift, registered.response, registered.drift) = (shift, measured.response, tracker.drift)
                }
                registered.stable = tracker.isStable
                previous = frame
                try body(registered)
            }
        } catch {
            queue.cancel()
            _ = try? producer.value()  // join the decoder before leaving
            throw error
        }
        do { try producer.value() } catch { throw error as? VideoError ?? .decoder("\(error)") }
        return waited
    }

    /// The long side faces are screened at: half the analysis size (their quality is measured at the analysis
    /// size).
    static func screenSide(_ analysisSize: Int) -> Int { max(32, analysisSize / 2) }

    /// Analyses the input in two stages. Every frame to analyse is decoded, registered and screened: faces found
    /// by a fast detector (YuNet, for CenterFace) at half the analysis size, scored at the analysis size without
    /// the 68 landmarks or the expression model. Then the `options.finalists` best-screened frames, spread over the video
    /// (`FrameSelection.finalists`), are scored in full: the cropper's detector at the analysis size and the
    /// whole capture quality. The best finalist, or the still, is chosen. With at least as many finalists as
    /// frames, every frame is scored in full at once.
    public func analyze(_ input: String) throws(VideoError) -> VideoAnalysis {
        let start = ContinuousClock.now
        do {
            try options.check()
            try cropper.checkSettings()
        } catch {
            throw .image(error)
        }
        let resolved = try Self.resolve(input, includeStill: options.includeStill)
        // A Live Photo's still is read and searched on a thread of its own meanwhile.
        let cropper = cropper
        let stillTask = resolved.still.map { path in
            BackgroundTask { () throws -> Analysis in
                do throws(FaceCropError) { return try cropper.analyze(path) } catch { throw VideoError.image(error) }
            }
        }
        let stage: Screened
        do { stage = try screen(resolved.video) } catch {
            _ = try? stillTask?.value()
            throw error
        }
        var frames = stage.frames
        let stillResult = stillTask.map { task in
            Result { () throws(VideoError) in
                do { return try task.value() } catch { throw error as? VideoError ?? .decoder("\(error)") }
            }
        }
        let finalistStart = ContinuousClock.now
        if stage.screen != nil { try scoreFinalists(&frames, size: stage.analysisSize, video: resolved.video) }
        let finalistTime = FaceCropper.ms(finalistStart, .now)
        var still: Analysis?
        if let stillPath = resolved.still, let stillResult {
            let full = try stillResult.get()
            // Scored on its analysis-size copy, like the video frames, so sharpness and size compare fairly.
            var small = Analysis(
                path: stillPath, storedSize: full.analysisSize, orientation: .up, loader: full.loader, detector: full.detector, faces: full.faces,
                analysisSize: full.analysisSize, preview: full.preview, decoded: full.preview)
            small.uprightOrientation = full.uprightOrientation
            var result = FrameAnalysis(time: nil, isStill: true, faces: full.faces, quality: [])
            do throws(FaceCropError) { result.quality = try quality.assess(small) } catch { throw .image(error) }
            if options.keepFrames {
                do { result.frame = try RGBImage(full.preview).fitting(keptFrameSize) } catch let error as VipsError {
                    throw .image(.imageProcessing(error.message))
                } catch {
                    throw .image(error as? FaceCropError ?? .imageProcessing("\(error)"))
                }
            }
            frames.append(result)
            still = full
        }
        let candidates = frames.map {
            FrameCandidate(faceScores: $0.quality.map(\.score), stable: $0.isStill ? nil : $0.stable, isStill: $0.isStill, finalist: $0.finalist)
        }
        let choice = FrameSelection.choose(candidates, stableOnly: options.stableOnly)
        // Only the choice's decoded picture is still needed.
        var chosen: Int?
        if case .chosen(let index, _) = choice { chosen = index }
        for i in frames.indices where i != chosen { frames[i].kept = nil }
        var analysis = VideoAnalysis(
            input: resolved, info: stage.info, analysisSize: stage.analysisSize, screen: stage.screen, frames: frames,
            scores: FrameSelection.scores(candidates),
            choice: choice, still: still)
        analysis.timings.analyze = FaceCropper.ms(start, .now)
        analysis.timings.decodeWait = stage.waited
        analysis.timings.finalists = finalistTime
        return analysis
    }

    /// The first stage's outcome: the video's description and the size its frames are analysed at, every
    /// analysed frame, the milliseconds spent waiting for the decoder, and how the frames were screened (nil: all
    /// scored in full already).
    struct Screened {
        var info: VideoInfo
        var analysisSize: ImageSize
        var frames: [FrameAnalysis]
        var waited: Double
        var screen: ScreenInfo?
    }

    /// The first stage: decodes, registers and screens (or, with as many finalists as frames, fully scores)
    /// every frame to analyse. The decoder is closed on return, before the second stage needs the memory.
    func screen(_ video: String) throws(VideoError) -> Screened {
        let decoder = try Self.open(video, options: options, maxPixels: cropper.maxPixels)
        let info = decoder.info
        let analysisSize = Self.frameSize(for: info, longSide: cropper.analysisSize)
        let samples = options.everyFrame ? nil : FrameSampling.times(duration: info.duration, count: options.frames)
        let frameCount = samples?.count ?? info.frameCount
        if let sheet = options.contactSheet {
            do { try ContactSheet.check(count: frameCount + 1, path: sheet, maxEncodeMemory: cropper.maxEncodeMemory) } catch { throw .image(error) }
        }
        let screening = frameCount <= 0 || options.finalists < frameCount
        let detector: FaceDetector
        let threshold: Double
        if screening, cropper.detector.kind == .centerface {
            // CenterFace runs only on the finalists, after decoding: its net is read then rather than held through
            // the decoding, the phase that needs the most memory (nothing to let go of when the caller made the
            // detector to read its net on first use).
            cropper.detector.releaseWorkingMemory()
            do { detector = try FaceDetector(kind: .yunet) } catch { throw .image(error) }
            threshold = DetectorKind.yunet.profile.threshold
        } else {
            (detector, threshold) = (cropper.detector, cropper.threshold)
        }
        // Screened faces are found at half the analysis size, and measured at the analysis size.
        let screenSide = screening ? Self.screenSide(cropper.analysisSize) : nil
        // Frames to analyse go to `analysisThreads` workers (the detector and the expression model serialise
        // themselves; the rest runs in parallel) while this thread registers and the decoder runs ahead.
        let stableOnly = options.stableOnly
        let finalists = screening ? min(options.finalists, Self.keptFrames) : 0
        let work = FrameQueue<(index: Int, frame: Registered)>(capacity: 2 * Self.analysisThreads)
        let results = Mutex<[Int: Result<FrameAnalysis, VideoError>]>([:])
        let workers = (0..<Self.analysisThreads).map { _ in
            BackgroundTask<Void> {
                while let job = work.pop() {
                    let result = Result { () throws(VideoError) in
                        try analyzeSample(job.frame, path: video, detector: detector, threshold: threshold, screenSide: screenSide)
                    }
                    results.withLock {
                        $0[job.index] = result
                        Self.keepBest(&$0, count: Self.keptFrames, finalists: finalists, stableOnly: stableOnly)
                    }
                    if case .failure = result { work.cancel() }
                }
            }
        }
        var submitted = 0
        let waited: Double
        do {
            waited = try Self.forEachFrame(
                decoder, samples: samples, options: options, rgb: analysisSize,
                analysisScale: Double(cropper.analysisSize), keep: true
            ) {
                (r) throws(VideoError) in
                guard r.isSample, r.frame.image != nil else { return }
                guard work.push((submitted, r)) else { throw .decoder("analysis stopped") }  // a worker failed: its error follows
                submitted += 1
            }
        } catch {
            work.cancel()
            for worker in workers { try? worker.value() }
            throw results.withLock { $0.values.compactMap { r -> VideoError? in if case .failure(let e) = r { return e } else { return nil } }.first } ?? error
        }
        work.finish()
        for worker in workers { try? worker.value() }
        var frames: [FrameAnalysis] = []
        for index in 0..<submitted {
            guard let result = results.withLock({ $0[index] }) else { throw .decoder("frame \(index) was not analysed") }
            frames.append(try result.get())
        }
        let screen = screenSide.map {
            let size = Self.frameSize(for: info, longSide: $0)
            return ScreenInfo(detector: detector.kind, threshold: threshold, width: size.width, height: size.height, finalists: options.finalists)
        }
        return Screened(info: info, analysisSize: analysisSize, frames: frames, waited: waited, screen: screen)
    }

    /// Finalists at least this far apart in time while there are enough of them (seconds): a blink closes the
    /// eyes for about 0.1–0.3 s.
    static let finalistSpacing = 0.25

    /// The second stage: marks the finalists among screened `frames` and scores them in full at the analysis
    /// size (`size`), from their kept decoded pictures (decoded again, from one new decoder, where a picture was let go);
    /// the other frames let go of theirs.
    func scoreFinalists(_ frames: inout [FrameAnalysis], size: ImageSize, video: String) throws(VideoError) {
        let picked = Set(Self.finalists(of: frames, count: options.finalists, stableOnly: options.stableOnly))
        // The finalists' pictures first (a decoder, for those let go of, is closed before detection needs the
        // memory); then every finalist's faces; then the detector's working memory goes before the landmark model
        // comes (`QualityAnalyzer.loadingLandmarksOnFirstUse`): no two of them are held together.
        var pictures: [(index: Int, image: RGBImage)] = []
        do {
            var decoder: VideoDecoder?
            for i in frames.indices {
                frames[i].finalist = picked.contains(i)
                guard frames[i].finalist else {
                    frames[i].kept = nil
                    continue
                }
                let time = frames[i].time ?? 0
                if let kept = frames[i].kept {
                    pictures.append((i, try kept.rgb(size)))
                } else {
                    if decoder == nil { decoder = try VideoDecoder(video, maxPixels: cropper.maxPixels) }
                    guard let decoded = try decoder?.readRGB(at: time, size: size) else { throw .decoder("frame at \(time) s could not be decoded again") }
                    pictures.append((i, decoded))
                }
            }
        }
        let found = try pictures.map { (p) throws(VideoError) in
            (p.index, p.image, try faces(in: p.image, detector: cropper.detector, threshold: cropper.threshold, maxSide: 0))
        }
        cropper.detector.releaseWorkingMemory()
        for (index, image, faces) in found { try assess(&frames[index], faces: faces, in: image, path: video, detector: cropper.detector.kind) }
    }

    /// The finalists among screened `frames` (`FrameSelection.finalists`, `finalistSpacing` apart), in time order.
    static func finalists(of frames: [FrameAnalysis], count: Int, stableOnly: Bool) -> [Int] {
        FrameSelection.finalists(
            frames.map { FrameCandidate(faceScores: $0.quality.map(\.score), stable: $0.stable, finalist: false) }, times: frames.map { $0.time ?? 0 },
            count: count, spacing: finalistSpacing, stableOnly: stableOnly)
    }

    /// Decoded frames kept for the full-resolution copy of the choice: the best few so far (and, after a
    /// screen, as many finalists at most).
    static let keptFrames = 3

    /// Lets go of the decoded frames of all but the `count` best frames analysed so far (`KeptFrames.released`)
    /// and, after a screen, the `finalists` finalists so far (`finalists(of:)`: spaced in time, so often not
    /// among the best few). A frame needed later whose picture was let go of is decoded again: with every frame
    /// scored, a choice among more than `count` frames within its tolerance of one another; after a screen, a
    /// finalist that a better frame near it displaced until a later frame displaced that one.
    static func keepBest(_ results: inout [Int: Result<FrameAnalysis, VideoError>], count: Int, finalists: Int, stableOnly: Bool) {
        let analysed = results.compactMap { index, result -> (index: Int, frame: FrameAnalysis)? in
            guard case .success(let frame) = result else { return nil }
            return (index, frame)
        }.sorted { $0.index < $1.index }
        let held = analysed.compactMap { index, frame -> KeptFrames.Held? in
            guard frame.kept != nil else { return nil }
            return KeptFrames.Held(index: index, sum: frame.quality.reduce(0) { $0 + $1.score }, stable: frame.stable == true, time: frame.time ?? 0)
        }
        let picked = finalists > 0 ? Self.finalists(of: analysed.map(\.frame), count: finalists, stableOnly: stableOnly).map { analysed[$0].index } : []
        for index in KeptFrames.released(held, keeping: count, stableOnly: stableOnly).subtracting(picked) {
            if case .success(var frame) = results[index] {
                frame.kept = nil
                results[index] = .success(frame)
            }
        }
    }

    /// The size frames are kept at for a contact sheet: its tile size for as many frames as may be analysed.
    var keptFrameSize: Int {
        ContactSheet.tileSize(for: options.everyFrame ? options.maxFrames : options.frames + 1)
    }

    /// Threads analysing frames at once.
    static let analysisThreads = 2

    /// One frame to analyse: faces (`detector` at `threshold`), their capture quality, and the stability
    /// measured for it. Scored in full, or with `screenSide` screened (`QualityAnalyzer.screen`), the faces
    /// found on a copy that long.
    func analyzeSample(_ r: Registered, path: String, detector: FaceDetector, threshold: Double, screenSide: Int?) throws(VideoError) -> FrameAnalysis {
        guard let image = r.frame.image else { throw .decoder("frame at \(r.frame.time) s has no pixels to analyse") }
        var result = FrameAnalysis(time: r.frame.time, isStill: false, faces: [], quality: [])
        result.kept = r.frame.kept
        (result.shift, result.response, result.drift, result.stable) = (r.shift, r.response, r.drift, r.stable)
        if let screenSide {
            result.faces = try faces(in: image, detector: detector, threshold: threshold, maxSide: screenSide)
            do { result.quality = try quality.screen(image, faces: result.faces, detector: detector.kind) } catch { throw .image(error) }
        } else {
            let faces = try faces(in: image, detector: detector, threshold: threshold, maxSide: 0)
            try assess(&result, faces: faces, in: image, path: path, detector: detector.kind)
        }
        // Kept for the contact sheet at its tile size, not the analysis size: 900 frames take 13 MB, not 800.
        if options.keepFrames {
            do { result.frame = try image.thumbnail(keptFrameSize) } catch { throw .image(error) }
        }
        return result
    }

    /// Scores `faces` (found by `detector` in `frame`) in full.
    func assess(_ result: inout FrameAnalysis, faces: [FaceObservation], in frame: RGBImage, path: String, detector: DetectorKind) throws(VideoError) {
        let size = ImageSize(width: frame.width, height: frame.height)
        do {
            let image = try withVipsErrors({ try frame.vipsImage }, vips: { .imageProcessing($0.message) })
            let analysis = Analysis(
                path: path, storedSize: size, orientation: .up, loader: .video, detector: detector, faces: faces, analysisSize: size,
                preview: image, decoded: image)
            (result.faces, result.quality) = (faces, try quality.assess(analysis))
        } catch {
            throw .image(error)
        }
    }

    /// The faces `detector` finds at `threshold` in `frame`, on a copy scaled down to `maxSide` if longer (0:
    /// the frame as it is).
    func faces(in frame: RGBImage, detector: FaceDetector, threshold: Double, maxSide: Int) throws(VideoError) -> [FaceObservation] {
        do {
            let detected = try frame.pixels.withUnsafeBufferPointer { (rgb) throws(FaceCropError) in
                try detector.detect(rgb: rgb.baseAddress!, width: frame.width, height: frame.height, maxSide: maxSide, threshold: threshold)
            }
            return FaceCropper.observations(
                FaceCropper.dropWeak(detected, kind: detector.kind), analysisSize: ImageSize(width: frame.width, height: frame.height))
        } catch {
            throw .image(error)
        }
    }

    /// The chosen candidate at full resolution, ready for `FaceCropper.plan` and `write`: a video frame decoded
    /// again at the video's display size, or the still as read.
    public func fullResolution(_ analysis: VideoAnalysis, index: Int) throws(VideoError) -> Analysis {
        guard analysis.frames.indices.contains(index) else {
            throw .image(.invalidSetting("Expected a frame index from 0 to \(analysis.frames.count - 1) but received '\(index)'."))
        }
        let candidate = analysis.frames[index]
        if candidate.isStill, var still = analysis.still {
            still.quality = candidate.quality
            return still
        }
        let size = ImageSize(width: analysis.info.width, height: analysis.info.height)
        let frame: RGBImage
        if let kept = candidate.kept {
            frame = try kept.rgb(size)
        } else {
            let decoder = try VideoDecoder(analysis.input.video, maxPixels: cropper.maxPixels)
            guard let decoded = try decoder.readRGB(at: candidate.time ?? 0, size: size) else {
                throw .decoder("frame at \(candidate.time ?? 0) s could not be decoded again")
            }
            frame = decoded
        }
        let image: VipsImage
        do { image = try frame.vipsImage } catch {
            throw .image(.imageProcessing(error.message))
        }
        var full = Analysis(
            path: analysis.input.video, storedSize: size, orientation: .up, loader: .video, detector: cropper.detector.kind, faces: candidate.faces,
            analysisSize: analysis.analysisSize, preview: image, decoded: image)
        full.quality = candidate.quality
        return full
    }

    /// Writes the chosen frame: cropped with `crop` options (`minQuality` leaves out faces scored below it, as
    /// for an image), or whole (then `crop` gives only the output quality and strip).
    public func write(_ analysis: VideoAnalysis, to output: String, crop: CropOptions, cropped: Bool) throws(VideoError) -> (
        output: OutputInfo, crop: CropInfo?
    ) {
        guard let index = analysis.chosenIndex else { throw .noFace(analysis.input.video, frames: analysis.frames.count) }
        let full = try fullResolution(analysis, index: index)
        do {
            if cropped {
                let screened = try cropper.screen(full, minimum: crop.minQuality)
                let plan = try cropper.plan(screened, options: crop)
                return (try cropper.write(screened, crop: plan.rect, to: output, options: crop), plan)
            }
            var whole = crop
            whole.size = nil
            let rect = PixelRect(x: 0, y: 0, width: full.size.width, height: full.size.height)
            return (try cropper.write(full, crop: rect, to: output, options: whole), nil)
        } catch {
            throw .image(error)
        }
    }
}
