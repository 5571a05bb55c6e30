// The system's words for an errno value, as facecrop's messages quote them.
import Glibc
import Synchronization

func errorText(_ code: Int32) -> String {
    guard let s = strerror(code) else { return "error \(code)" }
    return String(cString: s).lowercased()
}
