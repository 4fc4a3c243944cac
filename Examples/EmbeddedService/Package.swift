// swift-tools-version: 6.2
import PackageDescription

// An application of its own that serves Loupe's image routes under /images beside its own
// routes: what a Swift server team writes to embed Loupe (docs/embedding.md).
let package = Package(
    name: "EmbeddedService",
    dependencies: [
        // Loupe by path: this repository.
        .package(name: "Loupe", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    ],
    targets: [
        .target(
            name: "EmbeddedService",
            dependencies: [
                .product(name: "LoupeServer", package: "Loupe"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]),
        .executableTarget(name: "embedded-service", dependencies: ["EmbeddedService"]),
        .testTarget(
            name: "EmbeddedServiceTests",
            dependencies: [
                "EmbeddedService",
                .product(name: "Loupe", package: "Loupe"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]),
    ]
)
