// swift-tools-version: 6.1
import PackageDescription

// One module per concern (see docs/architecture.md):
//   BikePathCore       pure, sample-time-driven processing: no I/O, no clock, no dependencies
//   CGPS, CIIO         the system's libgps and libiio, as C modules
//   CIIOOnDemand       libiio loaded when an IMU is first opened, not linked (its header says why)
//   CCurlOnDemand      libcurl loaded when sync first talks to the hub, not linked (its header says why)
//   BikePathSensors    recording files, importers, gpsd (libgps) and IIO (libiio) sources
//   BikePathStore      SQLite (GRDB) buffer: trips, events, drafts, outbox, consent
//   BikePathAPI        the wire format shared by the sync client and the hub (docs/api.yaml), and
//                      JSONText, the one JSON encoder
//   BikePathSync       the upstream client: outbox to hub, consent, privacy, live position (HTTP through libcurl)
//   BikePathServing    the connection policy of every server (deadlines, caps, fair shares)
//   BikePathReview     the rider's review page (pairing, drafts, street tiles)
//   BikePathDaemon     the runtime: configuration, logging, sd_notify, status socket, the pipeline driver,
//                      inputs, and `run`/`record` assembled as services (Daemon.makeServiceGroup)
//   BikePathCLI        what bikepathd prints (texts, --json documents) and the rider's typed arguments
//   bikepathd          the executable: swift-argument-parser's commands over BikePathDaemon and BikePathCLI
//   BikePathHub        the hub as a library: routes, storage (SQLite or PostgreSQL), the shared map in tiles
//   bikepath-hub       the hub's executable: argument parsing and printing only
//   BikePathFixtures   synthetic inputs shared by tests and benchmarks (rides, the simulated city)
//   BikePathBench      benchmarks and load generators (bench/)
//   BikePathTestSupport, bikepath-hub-faults   test-only: real daemons, throwaway PostgreSQL, WebDriver,
//                      the tests' admission; the hub with injected faults (Tests/HubFaults)
//   BikePathDeviceTestSupport   test-only: a device's store and its hub process (Tests/DeviceSupport)
// Tests: one target per module; every test that runs bikepathd as a process is in BikePathCLITests.
let package = Package(
    name: "BikePath",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "bikepathd", targets: ["bikepathd"]),
        .executable(name: "bikepath-hub", targets: ["bikepath-hub"]),
        .library(name: "BikePathCore", targets: ["BikePathCore"]),
        .library(name: "BikePathHub", targets: ["BikePathHub"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
        // Sync: reference hub and upstream client.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        .package(url: "https://github.com/adam-fowler/compress-nio", exact: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", exact: "2.37.6"),
        // The hub's request-head guard (HTTP/1 parts as swift-http-types values); already pinned through Hummingbird.
        .package(url: "https://github.com/apple/swift-nio-extras", exact: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", exact: "1.8.0"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
        // The hub's route search (a heap for Dijkstra); already pinned through swift-nio.
        .package(url: "https://github.com/apple/swift-collections", exact: "1.6.0"),
        // `bikepathd run`: its parts as services in one ServiceGroup (docs/daemon.md).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        // The rider's review page: server-rendered HTML templates.
        .package(url: "https://github.com/hummingbird-project/swift-mustache", exact: "2.1.1"),
        // The hub on PostgreSQL and its /metrics.
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
    ],
    targets: [
        .systemLibrary(name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
        // libiio's header only: the library is not linked but loaded by CIIOOnDemand.
        .systemLibrary(name: "CIIO", providers: [.apt(["libiio-dev"])]),
        // libmd's SHA-256 for the device's hash chain (Sources/BikePathStore/SHA256.swift says why not swift-crypto).
        .systemLibrary(name: "CLibMD", pkgConfig: "libmd", providers: [.apt(["libmd-dev"])]),
        .target(name: "CIIOOnDemand"),
        // libcurl's header only (libcurl4-openssl-dev): the library is loaded, not linked.
        .target(name: "CCurlOnDemand"),
        .target(name: "BikePathCore"),
        .target(
            name: "BikePathSensors",
            dependencies: [
                "BikePathCore", "CGPS", "CIIO", "CIIOOnDemand",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "BikePathStore",
            dependencies: [
                "BikePathCore", "BikePathAPI",
                .product(name: "GRDB", package: "GRDB.swift"),
                // The system SQLite that GRDB links, for the track-point fast path.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CLibMD",
            ]
        ),
        .target(
            name: "BikePathDaemon",
            dependencies: [
                "BikePathCore", "BikePathSensors", "BikePathStore", "BikePathSync", "BikePathReview", "BikePathServing", "BikePathAPI",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "TOMLKit", package: "TOMLKit"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                // The status socket.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .target(
            name: "BikePathCLI",
            dependencies: [
                "BikePathCore", "BikePathSensors", "BikePathStore", "BikePathSync", "BikePathReview", "BikePathDaemon", "BikePathAPI",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "bikepathd",
            dependencies: [
                "BikePathCore", "BikePathSensors", "BikePathStore", "BikePathDaemon", "BikePathSync", "BikePathReview", "BikePathCLI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // The connection policy of every server the project runs (docs/connections.md).
        .target(
            name: "BikePathServing",
            dependencies: [
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        // The rider's review page (docs/review.md): routes, templates, SVG, pairing.
        .target(
            name: "BikePathReview",
            dependencies: [
                "BikePathCore", "BikePathStore", "BikePathServing",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                // Reads an MBTiles file (SQLite) for the street map.
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The page's stylesheet, compiled into the binary (PackageResources.review_css): an installed
            // bikepathd needs no file beside it. Linted by scripts/lint/page.
            resources: [.embedInCode("Assets/review.css")]
        ),
        // Benchmarks and the detector's cross-validation (bench/chain.sh, bench/cv-gonzalez.sh).
        // Every benchmark, and the generators the kill test runs (`store-replay`): never in the daemon.
        .executableTarget(
            name: "BikePathBench",
            dependencies: [
                "BikePathCore", "BikePathFixtures", "BikePathSensors", "BikePathStore", "BikePathDaemon", "BikePathCLI", "BikePathHub",
                "BikePathAPI",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CompressNIO", package: "compress-nio"),
            ]
        ),
        // Generators for tests and benchmarks (seeded RNG, modelled wheel impacts): never in a product.
        .target(name: "BikePathFixtures", dependencies: ["BikePathCore", "BikePathAPI"]),
        // The wire format shared by the sync client and the hub (docs/api.yaml).
        .target(name: "BikePathAPI"),
        // HTTP to the hub through the system's libcurl and OpenSSL, loaded when sync starts
        // (Sources/CCurlOnDemand says why not AsyncHTTPClient and swift-nio-ssl on the device).
        .target(
            name: "BikePathSync",
            dependencies: [
                "BikePathCore", "BikePathStore", "BikePathAPI", "CCurlOnDemand",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .target(
            name: "BikePathHub",
            dependencies: [
                "BikePathAPI", "BikePathCore", "BikePathServing",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // The system SQLite that GRDB links: a remake's report rows read through its C API.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Its pool's own errors (a tripped connection circuit breaker), to answer them 503.
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The map page's script and style, compiled into the binary (PackageResources.map_js, .map_css):
            // the Debian package ships the binary alone. Linted by scripts/lint/page.
            resources: [.embedInCode("HTTP/MapPage/map.js"), .embedInCode("HTTP/MapPage/map.css")]
        ),
        .executableTarget(
            name: "bikepath-hub",
            dependencies: [
                "BikePathHub", "BikePathAPI",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // Test-only: the hub with its fault hook driven by `--test-*` switches (never shipped).
        .executableTarget(
            name: "bikepath-hub-faults",
            dependencies: [
                "BikePathHub", "BikePathAPI", "BikePathCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/HubFaults"
        ),
        .testTarget(
            name: "BikePathHubTests",
            dependencies: [
                "BikePathHub", "BikePathAPI", "BikePathCore", "BikePathFixtures", "BikePathTestSupport", "BikePathDeviceTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures"]  // SQL dumps of a hub at an earlier schema, read in place by path
        ),
        .testTarget(
            name: "BikePathSyncTests",
            dependencies: [
                "BikePathSync", "BikePathAPI", "BikePathStore", "BikePathCore", "BikePathTestSupport", "BikePathDeviceTestSupport",
                "BikePathFixtures",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "BikePathReviewTests",
            dependencies: [
                "BikePathReview", "BikePathStore", "BikePathCore", "BikePathTestSupport", "BikePathFixtures",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "BikePathCoreTests", dependencies: ["BikePathCore", "BikePathTestSupport", "BikePathFixtures"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "BikePathSensorsTests",
            dependencies: ["BikePathSensors", "BikePathCore", "BikePathStore", "BikePathTestSupport", "BikePathFixtures"],
            exclude: ["Fixtures"]  // read in place by path; Tests/Harness scripts use them too
        ),
        // Every test that runs bikepathd as a process: chain regression files, exit codes,
        // JSON shapes, replay, the rider's loop, the CLI docs, `run` through signals, the
        // store's and sync's commands (drafts, consent, diagnose, verify, sync, requeue).
        .testTarget(
            name: "BikePathCLITests",
            dependencies: [
                "BikePathCLI", "BikePathDaemon", "BikePathAPI", "BikePathSync", "BikePathCore", "BikePathSensors", "BikePathStore",
                "BikePathFixtures", "BikePathTestSupport", "BikePathDeviceTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // Running the built executables from tests (shared by the test targets below).
        .target(
            name: "BikePathTestSupport",
            dependencies: [
                "BikePathFixtures",
                // WebDriver.swift: chromedriver over HTTP, for the review page's and the map page's browser tests.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/Support"
        ),
        // A device's store and its hub as test fixtures (Device, HubProcess, synthetic stores),
        // for the store, sync, CLI and hub tests.
        .target(
            name: "BikePathDeviceTestSupport",
            dependencies: [
                "BikePathStore", "BikePathSync", "BikePathAPI", "BikePathCore", "BikePathFixtures", "BikePathTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Tests/DeviceSupport"
        ),
        .testTarget(
            name: "BikePathStoreTests",
            dependencies: [
                "BikePathStore", "BikePathAPI", "BikePathCore", "BikePathTestSupport", "BikePathDeviceTestSupport", "BikePathFixtures",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "BikePathDaemonTests",
            dependencies: [
                "BikePathDaemon", "BikePathAPI", "BikePathTestSupport", "BikePathCore", "BikePathSensors", "BikePathStore", "BikePathSync",
                "BikePathFixtures",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
