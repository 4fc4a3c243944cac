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
        .executable(name: "loupe", targets: ["LoupeCLI"]),
    ],
    targets: [
        // Caching core: generic, knows nothing about images (DESIGN.md, layer 1).
        .target(name: "LoupeCaching", swiftSettings: strict),

        // Codecs (DESIGN.md, layer 2): system C libraries, a C shim that owns setjmp/longjmp and
        // the GIF compositor, and the Swift module on top.
        .systemLibrary(name: "CJPEG", path: "Sources/SystemLibraries/CJPEG", pkgConfig: "libjpeg",
                       providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CPNG", path: "Sources/SystemLibraries/CPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CWebP", path: "Sources/SystemLibraries/CWebP", pkgConfig: "libwebpdemux",
                       providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CGIF", path: "Sources/SystemLibraries/CGIF", providers: [.apt(["libgif-dev"])]),
        // giflib has no .pc file, so nothing links it unless named here.
        .target(name: "CLoupeCodecs", dependencies: ["CJPEG", "CPNG", "CWebP", "CGIF"],
                linkerSettings: [.linkedLibrary("gif")]),
        .target(name: "LoupeCodecs", dependencies: ["CLoupeCodecs"], swiftSettings: strict),
        .executableTarget(name: "LoupeCodecsFuzz", dependencies: ["LoupeCodecs"], swiftSettings: strict),

        // Tools.
        .executableTarget(name: "LoupeCLI", dependencies: ["LoupeCaching"], swiftSettings: strict),
        .executableTarget(name: "LoupeBenchmarks", dependencies: ["LoupeCaching", "LoupeCodecs"], swiftSettings: strict),

        .testTarget(name: "LoupeCachingTests", dependencies: ["LoupeCaching"], swiftSettings: strict),
        .testTarget(name: "LoupeCodecsTests", dependencies: ["LoupeCodecs"], swiftSettings: strict),
    ]
)
