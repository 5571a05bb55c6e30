import FaceCrop
import Glibc

/// "done/total, rate, ETA, failures" on one line of a terminal; nothing otherwise.
final class Progress: @unchecked Sendable {  // used under a lock only (batch's runner, rank's outcomes)
    let total: Int
    let enabled: Bool
    private let start = ContinuousClock.now
    private var done = 0
    private var failed = 0

    init(total: Int, enabled: Bool) {
        self.total = total
        self.enabled = enabled
    }

    var seconds: Double { FaceCropper.ms(start, .now) / 1000 }

    func step(failed isFailure: Bool) {
        done += 1
        if isFailure { failed += 1 }
        guard enabled else { return }
        let rate = Double(done) / max(seconds, 0.001)
        let eta = Double(total - done) / max(rate, 0.001)
        let line = "\(done)/\(total)  \((rate * 10).rounded() / 10) img/s  ETA \(Int(eta.rounded())) s  \(failed) failed"
        _ = ("\r" + line + "\u{1B}[K").utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
    }

    func clear() {
        guard enabled else { return }
        _ = "\r\u{1B}[K".utf8CString.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count - 1) }
    }
}
