// swift-tools-version: 6.2
import PackageDescription

/// Every target of this package builds in Swift 6 mode with warnings treated as errors, so
/// "zero warnings" is enforced by the compiler rather than by review.
let strict: [SwiftSetting] = [
    .treatAllWarnings(as: .error),
]

let package = Package(
    name: "Loupe",
    products: [
        .library(name: "LoupeCaching", targets: ["LoupeCaching"]),
        .library(name: "LoupeCodecs", targets: ["LoupeCodecs"]),
        .library(name: "LoupeLoading", targets: ["LoupeLoading"]),
        .library(name: "LoupeURLSessionLoading", targets: ["LoupeURLSessionLoading"]),
        .library(name: "LoupeProcessing", targets: ["LoupeProcessing"]),
        .library(name: "Loupe", targets: ["Loupe"]),
        .library(name: "LoupeServer", targets: ["LoupeServer"]),
        .executable(name: "loupe", targets: ["LoupeCLI"]),
        // libLoupeVision.so, the shim over OpenCV that thumbor's smart crop opens on first use
        // (Sources/CLoupeVision/include/loupe_vision.h says why it is not linked); it ships beside `loupe`.
        .library(name: "LoupeVision", type: .dynamic, targets: ["CLoupeVision"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        // `swift package generate-documentation`: the DocC catalogs (Sources/*/*.docc), built in CI.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // Caching core: generic, knows nothing about images (ARCHITECTURE.md, layers).
        .target(name: "LoupeCaching", dependencies: [.product(name: "Logging", package: "swift-log")], swiftSettings: strict),

        // Codecs (ARCHITECTURE.md, layers): system C libraries, a C shim that owns setjmp/longjmp and
        // the GIF compositor, and the Swift module on top.
        .systemLibrary(name: "CJPEG", path: "Sources/SystemLibraries/CJPEG", pkgConfig: "libjpeg",
                       providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CPNG", path: "Sources/SystemLibraries/CPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CWebP", path: "Sources/SystemLibraries/CWebP", pkgConfig: "libwebpdemux",
                       providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CGIF", path: "Sources/SystemLibraries/CGIF", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CLCMS", path: "Sources/SystemLibraries/CLCMS", pkgConfig: "lcms2",
                       providers: [.apt(["liblcms2-dev"])]),
        // The system's OpenSSL for SHA-256 and HMAC (LoupeLoading's Digest).
        .systemLibrary(name: "CLibCrypto", path: "Sources/SystemLibraries/CLibCrypto", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        // libheif, libavif and libjxl are not linked: the shim opens them on first use
        // (Sources/CLoupeCodecs/lazy_library.h says why) and includes their headers from
        // /usr/include (libheif-dev, libavif-dev, libjxl-dev; Scripts/setup.sh). giflib has no
        // .pc file, so it is named here; so is libdeflate (the PNG fast path's inflater, used
        // from the shim's C only, its header in /usr/include), libimagequant (the GIF encoder's palettes) and
        // libwebpmux (animated WebP output), whose .pc file the CWebP module does not name.
        .target(name: "CLoupeCodecs", dependencies: ["CJPEG", "CPNG", "CWebP", "CGIF", "CLCMS"],
                linkerSettings: [.linkedLibrary("gif"), .linkedLibrary("deflate"), .linkedLibrary("imagequant"),
                                .linkedLibrary("webpmux")]),
        // The caching core for its one cancellation signal (WorkCancellation), which the encoders poll.
        .target(name: "LoupeCodecs", dependencies: ["CLoupeCodecs", "LoupeCaching"], swiftSettings: strict),
        // libFuzzer targets (Scripts/ci/fuzz.sh) and the driver they share; not products.
        .target(name: "FuzzDriver", path: "Fuzz/FuzzDriver", swiftSettings: strict),
        .executableTarget(name: "LoupeCodecsFuzz", dependencies: ["FuzzDriver", "LoupeCodecs"], path: "Fuzz/LoupeCodecsFuzz", swiftSettings: strict),
        .executableTarget(
            name: "LoupeURLFuzz", dependencies: ["FuzzDriver", "LoupeServer", "Loupe", "LoupeCodecs"], path: "Fuzz/LoupeURLFuzz",
            swiftSettings: strict),
        // Child process for CodecLibraryLoadingTests: what a fresh process maps as it sniffs and
        // decodes, and the missing-library path; deliberately not a product.
        .executableTarget(
            name: "LoupeCodecLibraryProbe", dependencies: ["LoupeCodecs", "CLoupeCodecs", "LoupeTestSupport"],
            path: "Probes/LoupeCodecLibraryProbe", swiftSettings: strict),

        // Processing (ARCHITECTURE.md, layers): depends only on the codecs' bitmap (and decoders for
        // the data-level colour helpers), and on the caching core's cancellation signal.
        .target(name: "LoupeProcessing", dependencies: ["LoupeCaching", "LoupeCodecs"], swiftSettings: strict),

        // The C++ shim over OpenCV (face and eye cascades, corner features) behind a C interface;
        // no target depends on it: it is built only as the LoupeVision library, which
        // LoupeProcessing's VisionLibrary opens with dlopen. OpenCV's headers are under
        // /usr/include/opencv4 (libopencv-*-dev, Scripts/setup.sh).
        .target(name: "CLoupeVision",
                cxxSettings: [.unsafeFlags(["-I/usr/include/opencv4"])],
                linkerSettings: [.linkedLibrary("opencv_objdetect"), .linkedLibrary("opencv_imgproc"), .linkedLibrary("opencv_core")]),

        // Loading: bytes for a URL over HTTP(S), file and data URLs; knows nothing about images.
        .target(
            name: "LoupeLoading",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // SHA-256 and HMAC (Digest): AWS Signature Version 4 here, the pipeline's and the
                // service's keys and signatures above.
                "CLibCrypto",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // URLSession's loader, apart: FoundationNetworking links libcurl and its TLS, LDAP, SSH and
        // HTTP/2 libraries (~9 ms of start-up CPU in every process that links them, used or not).
        .target(
            name: "LoupeURLSessionLoading",
            dependencies: ["LoupeLoading", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")],
            swiftSettings: strict),

        // Pipeline (ARCHITECTURE.md, layers): memory → disk → coalesced network → decode → process.
        .target(
            name: "Loupe",
            dependencies: [
                "LoupeCaching", "LoupeCodecs", "LoupeProcessing", "LoupeLoading",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            swiftSettings: strict),

        // A list scrolled at a steady speed against a pipeline and a prefetcher, measuring what a
        // user would see: for `loupe demo`, the lists benchmark and its tests; not a product.
        .target(name: "LoupeSimulation", dependencies: ["Loupe"], swiftSettings: strict),

        // An embedded HTTP/1.1 origin with latency and faults (SwiftNIO), for the pipeline's
        // fault tests and `loupe demo`; not a product.
        .target(
            name: "LoupeOrigin",
            dependencies: [
                "LoupeCaching",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict),

        // A reduced reproduction of a Swift optimiser bug, in a module of its own so that nothing
        // else changes how it is compiled (docs/known-issues.md); not a product.
        .target(name: "LoupeToolchainProbe", path: "Probes/LoupeToolchainProbe", swiftSettings: strict),

        // Real servers for tests and benchmarks (nginx on loopback); not a product.
        .target(name: "LoupeTestSupport", dependencies: ["LoupeCaching", "LoupeCodecs", "LoupeLoading"], path: "Tests/LoupeTestSupport",
                swiftSettings: strict),

        // The HTTP image service (`loupe serve`): imgproxy-compatible URLs on top of the pipeline.
        .target(
            name: "LoupeServer",
            dependencies: [
                "Loupe", "LoupeCaching", "LoupeCodecs", "LoupeLoading", "LoupeProcessing",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The playground page's HTML, CSS and JavaScript, read through `Bundle.module`.
            resources: [.copy("Playground/Files")],
            swiftSettings: strict),

        // Tools.
        .executableTarget(
            name: "LoupeCLI",
            dependencies: [
                "Loupe", "LoupeCaching", "LoupeCodecs", "LoupeLoading", "LoupeOrigin", "LoupeProcessing", "LoupeServer", "LoupeSimulation",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "LoupeBenchmarks",
            dependencies: [
                "Loupe", "LoupeCaching", "LoupeCodecs", "LoupeLoading", "LoupeOrigin", "LoupeProcessing", "LoupeSimulation",
                "LoupeTestSupport", "LoupeURLSessionLoading",
            ],
            path: "Benchmarks/LoupeBenchmarks",
            swiftSettings: strict),
        // Child process for the disk cache's crash and fault tests; deliberately not a product.
        .executableTarget(name: "LoupeDiskCacheStress", dependencies: ["LoupeCaching"], path: "Probes/LoupeDiskCacheStress", swiftSettings: strict),

        .testTarget(name: "LoupeCachingTests", dependencies: ["LoupeCaching", "LoupeDiskCacheStress", "LoupeTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "LoupeCodecsTests", dependencies: ["LoupeCodecs", "CLCMS", "LoupeCodecLibraryProbe", "LoupeTestSupport"],
            swiftSettings: strict),
        .testTarget(name: "LoupeProcessingTests", dependencies: ["LoupeProcessing", "LoupeTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "LoupeLoadingTests",
            dependencies: [
                "LoupeLoading", "LoupeURLSessionLoading", "LoupeOrigin", "LoupeTestSupport",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "LoupeTests",
            dependencies: [
                "Loupe", "LoupeOrigin", "LoupeSimulation", "LoupeTestSupport", "LoupeToolchainProbe",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // `import Loupe` alone is enough for ordinary use: this target depends on nothing else.
        .testTarget(name: "LoupeImportTests", dependencies: ["Loupe"], swiftSettings: strict),
        .testTarget(
            name: "LoupeOriginTests",
            dependencies: ["LoupeOrigin", "LoupeLoading", "LoupeTestSupport"],
            swiftSettings: strict),
        // The image service: its routes answered in process (HummingbirdTesting's router mode), a
        // real server on loopback for what needs a socket, `loupe serve` as a child process
        // (`ServeProcess`; LoupeCLI so that the binary is built), real origins.
        .testTarget(
            name: "LoupeServerTests",
            dependencies: [
                "Loupe", "LoupeCLI", "LoupeServer", "LoupeCodecs", "LoupeProcessing", "LoupeLoading", "LoupeOrigin", "LoupeTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),
        // `Scripts/ops/cluster.sh` end to end: `loupe` instances (built beside the test bundle) behind
        // a real nginx; a step of its own in Scripts/ci/test.sh.
        .testTarget(
            name: "LoupeClusterTests",
            dependencies: [
                "LoupeCLI", "LoupeServer", "LoupeTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: strict),
        // The `loupe` binary end to end, as a child process (it is built beside the test bundle).
        .testTarget(
            name: "LoupeCLITests",
            dependencies: ["LoupeCLI", "LoupeCodecs", "LoupeOrigin", "LoupeProcessing", "LoupeServer", "LoupeTestSupport"],
            swiftSettings: strict),
    ]
)
