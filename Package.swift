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
        .library(name: "LoupeLoading", targets: ["LoupeLoading"]),
        .executable(name: "loupe", targets: ["LoupeCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    ],
    targets: [
        // Caching core: generic, knows nothing about images (DESIGN.md, layer 1).
        .target(name: "LoupeCaching", swiftSettings: strict),

        // Loading: bytes for a URL over HTTP(S), file and data URLs; knows nothing about images.
        .target(
            name: "LoupeLoading",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict),

        // Real servers for tests and benchmarks (nginx on loopback); not a product.
        .target(name: "LoupeTestSupport", swiftSettings: strict),

        // Tools.
        .executableTarget(name: "LoupeCLI", dependencies: ["LoupeCaching"], swiftSettings: strict),
        .executableTarget(
            name: "LoupeBenchmarks",
            dependencies: ["LoupeCaching", "LoupeLoading", "LoupeTestSupport"],
            swiftSettings: strict),

        .testTarget(name: "LoupeCachingTests", dependencies: ["LoupeCaching"], swiftSettings: strict),
        .testTarget(
            name: "LoupeLoadingTests",
            dependencies: ["LoupeLoading", "LoupeTestSupport", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")],
            swiftSettings: strict),
    ]
)
