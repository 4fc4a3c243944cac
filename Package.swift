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
        .executable(name: "loupe", targets: ["LoupeCLI"]),
    ],
    targets: [
        // Caching core: generic, knows nothing about images (DESIGN.md, layer 1).
        .target(name: "LoupeCaching", swiftSettings: strict),

        // Tools.
        .executableTarget(name: "LoupeCLI", dependencies: ["LoupeCaching"], swiftSettings: strict),
        .executableTarget(name: "LoupeBenchmarks", dependencies: ["LoupeCaching"], swiftSettings: strict),

        .testTarget(name: "LoupeCachingTests", dependencies: ["LoupeCaching"], swiftSettings: strict),
    ]
)
