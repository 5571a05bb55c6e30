// swift-tools-version: 6.0
// The libFuzzer harness for facecrop, a package of its own so the main package (and CI's `swift build`) never
// links a fuzzer main. Build and run it with scripts/fuzz.sh.
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name: the repository root (main, a worktree, a CI checkout).
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "facecrop-fuzz",
    dependencies: [.package(path: "..")],
    targets: [
        // No main: libFuzzer's (from -sanitize=fuzzer) calls LLVMFuzzerTestOneInput.
        .executableTarget(
            name: "FuzzPipeline",
            dependencies: [.product(name: "FaceCrop", package: root)],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    ]
)
