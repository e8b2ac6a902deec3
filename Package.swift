// swift-tools-version: 6.1
import PackageDescription

// One module per concern (see docs/architecture.md):
//   BikePathCore    pure, sample-time-driven processing: no I/O, no clock, no dependencies
//   BikePathSensors recording files, importers, gpsd (libgps) and IIO (libiio) sources
//   BikePathStore   SQLite (GRDB) buffer: trips, events, drafts, outbox
//   bikepathd       the executable: daemon and CLI subcommands
let package = Package(
    name: "BikePath",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "bikepathd", targets: ["bikepathd"]),
        .library(name: "BikePathCore", targets: ["BikePathCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .systemLibrary(name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
        .systemLibrary(name: "CIIO", pkgConfig: "libiio", providers: [.apt(["libiio-dev"])]),
        .target(name: "BikePathCore"),
        .target(
            name: "BikePathSensors",
            dependencies: [
                "BikePathCore", "CGPS", "CIIO",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "BikePathStore",
            dependencies: [
                "BikePathCore",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(
            name: "bikepathd",
            dependencies: [
                "BikePathCore", "BikePathSensors", "BikePathStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "BikePathCoreTests", dependencies: ["BikePathCore"], resources: [.copy("Fixtures")]),
        .testTarget(name: "BikePathSensorsTests", dependencies: ["BikePathSensors", "BikePathCore"], exclude: ["Fixtures"]),
        .testTarget(name: "BikePathStoreTests", dependencies: ["BikePathStore", "BikePathCore"]),
    ],
    swiftLanguageModes: [.v6]
)
