// Contact sheet of the analysed frames (placeholder until the shared sheet lands).
extension BestFrameFinder {
    public func writeContactSheet(_ analysis: VideoAnalysis, to path: String) throws(VideoError) {
        throw .decoder("contact sheets are not available yet")
    }
}
