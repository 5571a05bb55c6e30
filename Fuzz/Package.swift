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
        // No main: libFuzzer's (from -sanitize=fuzzer) calls LLVMFuzzerTestOneInput. The target's one file is not
        // main.swift, so SwiftPM compiles it as a library file (no top-level code, no main of its own).
        .executableTarget(
            name: "FuzzPipeline",
            dependencies: [.product(name: "FaceCrop", package: root)]
        )
    ]
)
