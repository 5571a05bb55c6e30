// swift-tools-version: 6.0
import PackageDescription

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
        // libvips' headers and link flags, nothing else.
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        // Fixed-arity C wrappers over libvips' variadic API; Swift sees only opaque pointers.
        .target(name: "CVipsShim", dependencies: ["CVips"]),
        // OpenCV (C++) behind a plain C header. Linked library by library: pkg-config opencv4 would pull in
        // all 55 OpenCV libraries (see ../shared/NOTES-interop.md).
        .target(
            name: "CFaceDetect",
            exclude: ["opencv-include"],
            cxxSettings: [.headerSearchPath("opencv-include")],
            linkerSettings: [
                .linkedLibrary("opencv_dnn"), .linkedLibrary("opencv_objdetect"),
                .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core"),
            ]
        ),
        // FFmpeg's libraries (Debian libavformat-dev, libavcodec-dev, libavutil-dev, libswscale-dev) behind a small C
        // header: open a video, read a frame scaled to RGB and turned upright. Headers are on the default path.
        .target(
            name: "CVideo",
            linkerSettings: [
                .linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("swscale"), .linkedLibrary("avutil"),
            ]
        ),
        // Pure Swift: geometry, crop planning. No C imports, testable without pixels.
        .target(name: "FaceCropCore"),
        // Adapters over libvips and OpenCV, and the pipeline.
        .target(name: "FaceCrop", dependencies: ["FaceCropCore", "CVipsShim", "CFaceDetect", "CVideo"]),
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
