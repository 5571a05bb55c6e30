// Signals: stopping cleanly, temporary files removed.
import Glibc
import Synchronization

/// SIGINT, SIGTERM and SIGHUP stop facecrop cleanly: temporary files being written are deleted, then the
/// process exits with 128 + the signal number. (SIGKILL cannot be caught: the next batch run removes the
/// temporary files of processes that no longer exist.)
package enum Interruption {
    /// Call before any thread starts: the signals are blocked everywhere and taken by one waiting thread.
    package static func install() {
        var set = sigset_t()
        sigemptyset(&set)
        for s in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, s) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        let blocked = set
        _ = BackgroundTask<Void> {
            var set = blocked
            var signal: Int32 = 0
            sigwait(&set, &signal)
            AtomicFile.inFlight.withLock { for path in $0 { unlink(path) } }
            _exit(128 + signal)
        }
    }
}
