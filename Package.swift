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
        .executable(name: "facecrop-serve", targets: ["facecrop-serve"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // facecrop-serve only (FaceCropServer): the FaceCrop library and the facecrop command link none of these.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // Fixed-arity C wrappers over libvips' variadic API; Swift sees only opaque pointers. libvips' flags are
        // given here rather than through pkg-config, whose "-pthread" SwiftPM rejects with a warning on every build;
        // glib's headers through committed symlinks (glib/include -> /usr/include/glib-2.0, glib/config-<arch> ->
        // /usr/lib/<multiarch>/glib-2.0/include): unsafeFlags would bar packages depending on facecrop by version.
        .target(
            name: "CVipsShim",
            exclude: ["glib"],
            cSettings: [.headerSearchPath("glib/include"), .headerSearchPath(glibConfigInclude), .headerSearchPath("../CxxShared")],
            linkerSettings: [.linkedLibrary("vips"), .linkedLibrary("gobject-2.0"), .linkedLibrary("gmodule-2.0"), .linkedLibrary("glib-2.0")]
        ),
        // OpenCV (C++) behind a plain C header. Linked library by library: pkg-config opencv4 would load every
        // OpenCV library Debian ships, Qt, VTK and HDF5 behind them, into every process (ARCHITECTURE.md).
        .target(
            name: "COpenCV",
            exclude: ["opencv-include"],
            cxxSettings: [.headerSearchPath("opencv-include"), .headerSearchPath("../CxxShared")],
            linkerSettings: [
                .linkedLibrary("opencv_dnn"), .linkedLibrary("opencv_objdetect"),
                .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core"),
            ]
        ),
        // Both C++ shims catch every exception through CxxShared/guarded.hpp (a header, not a target); CVipsShim and
        // CLandmarks map large buffers through CxxShared/huge_pages.h.
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
        .target(name: "FaceCrop", dependencies: ["FaceCropCore", "CVipsShim", "COpenCV", "CLandmarks", "CVideo", "CVersion"]),
        .executableTarget(
            name: "facecrop",
            dependencies: ["FaceCrop", .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        // The HTTP service (facecrop-serve): URL options, signatures, sources, limits, handlers. Its own executable, so
        // the facecrop command links none of the server's packages and starts as fast as before.
        .target(
            name: "FaceCropServer",
            dependencies: [
                "FaceCrop",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(name: "facecrop-serve", dependencies: ["FaceCropServer"]),
        .testTarget(name: "FaceCropCoreTests", dependencies: ["FaceCropCore"]),
        .testTarget(name: "FaceCropTests", dependencies: ["FaceCrop"]),
        .testTarget(
            name: "FaceCropCLITests",
            dependencies: ["facecrop", "FaceCrop"]
        ),
        // Golden/<case>/ run through the real argument parser and pipeline, compared with recorded results.
        .testTarget(name: "GoldenTests", dependencies: ["facecrop", "FaceCrop"]),
        .testTarget(
            name: "FaceCropServerTests",
            dependencies: [
                "FaceCropServer", "facecrop-serve",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
    ],
    cxxLanguageStandard: .cxx17
)
