// swift-tools-version: 6.0
import PackageDescription

// glib's glibconfig.h lives in Debian's multiarch folder: CVipsShim/glib holds a committed symlink for each
// architecture (config-x86_64, config-aarch64) and searches the one of the machine it is built for.
#if arch(arm64)
let glibConfigInclude = "glib/config-aarch64"
#else
let glibConfigInclude = "glib/config-x86_64"
#endif

let package = Package(
    name: "facecrop",
    products: [
        .library(name: "FaceCrop", targets: ["FaceCrop"]),
        .executable(name: "facecrop", targets: ["facecrop"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        // Fixed-arity C wrappers over libvips' variadic API; Swift sees only opaque pointers. libvips' flags are
        // given here rather than through pkg-config, whose "-pthread" SwiftPM rejects with a warning on every build;
        // glib's headers through committed symlinks (glib/include -> /usr/include/glib-2.0, glib/config-<arch> ->
        // /usr/lib/<multiarch>/glib-2.0/include): unsafeFlags would bar packages depending on facecrop by version.
        .target(
            name: "CVipsShim",
            exclude: ["glib"],
            cSettings: [.headerSearchPath("glib/include"), .headerSearchPath(glibConfigInclude)],
            linkerSettings: [.linkedLibrary("vips"), .linkedLibrary("gobject-2.0"), .linkedLibrary("glib-2.0")]
        ),
        // OpenCV (C++) behind a plain C header. Linked library by library: pkg-config opencv4 would load every
        // OpenCV library Debian ships, Qt, VTK and HDF5 behind them, into every process (ARCHITECTURE.md).
        .target(
            name: "CFaceDetect",
            exclude: ["opencv-include"],
            cxxSettings: [.headerSearchPath("opencv-include"), .headerSearchPath("../CxxShared")],
            linkerSettings: [
                .linkedLibrary("opencv_dnn"), .linkedLibrary("opencv_objdetect"),
                .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core"),
            ]
        ),
        // Both C++ shims catch every exception through CxxShared/guarded.hpp (a header, not a target).
        // dlib's 68-point shape predictor (C++) behind a plain C header. Header-only: it links no library (dlib's
        // BLAS/LAPACK calls are turned off in the shim, see CLandmarks.cpp).
        .target(name: "CLandmarks", cxxSettings: [.headerSearchPath("../CxxShared")]),
        // FFmpeg's libraries (Debian libavformat-dev, libavcodec-dev, libavutil-dev, libswscale-dev) behind a small C
        // header: open a video, read a frame scaled to RGB and turned upright. Headers are on the default path; the
        // libraries are opened on first use (dlopen, see CVideo.c), so processes that read no video never load them.
        .target(name: "CVideo"),
        // The VERSION file at the package root, embedded at compile time: the one place the version is written.
        .target(name: "CVersion"),
        // Pure Swift: geometry, crop planning. No C imports, testable without pixels.
        .target(name: "FaceCropCore"),
        // Adapters over libvips, OpenCV, dlib and FFmpeg, and the pipeline.
        .target(name: "FaceCrop", dependencies: ["FaceCropCore", "CVipsShim", "CFaceDetect", "CLandmarks", "CVideo", "CVersion"]),
        .executableTarget(
            name: "facecrop",
            dependencies: ["FaceCrop", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "FaceCropCoreTests", dependencies: ["FaceCropCore"]),
        .testTarget(name: "FaceCropTests", dependencies: ["FaceCrop"]),
        .testTarget(
            name: "FaceCropCLITests",
            dependencies: ["facecrop", "FaceCrop"]
        ),
        // Golden/<case>/ run through the real argument parser and pipeline, compared with recorded results.
        .testTarget(name: "GoldenTests", dependencies: ["facecrop", "FaceCrop"]),
    ],
    cxxLanguageStandard: .cxx17
)
