import ArgumentParser
import BikePathHub
import Foundation
import Logging

/// Test-only: `bikepath-hub serve` on a SQLite file with the fault hook set from
/// `--test-*` switches, for the sync client's fault and kill tests (which need a hub
/// process they can kill -9). Never installed: the shipped hub has no such switches.
@main
struct FaultyHub: AsyncParsableCommand {
    @Option var port = 0
    @Option var db: String
    @Option var tokens: String
    @Option(name: .customLong("test-fail-ratio")) var failRatio = 0.0
    @Option(name: .customLong("test-busy-ratio")) var busyRatio = 0.0
    @Option(name: .customLong("test-delay-ratio")) var delayRatio = 0.0
    @Option(name: .customLong("test-delay-ms")) var delayMilliseconds = 0
    @Option(name: .customLong("test-drop-after-commit-ratio")) var dropRatio = 0.0
    @Option(name: .customLong("test-seed")) var seed: UInt64 = 1

    func run() async throws {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let logger = Logger(label: "bikepath-hub-faults")
        let faults = HubFaults(
            failRatio: failRatio, busyRatio: busyRatio, delayRatio: delayRatio, delayMilliseconds: delayMilliseconds,
            dropAfterCommitRatio: dropRatio, seed: seed)
        try await HubStorage.sqlite(path: db).withStore(logger: logger) { store in
            try await store.migrate()
            try await Hub.applyTokensFile(path: tokens, to: store, logger: logger)
            // The fault tests retry in tight loops: no per-device rate limit here.
            let configuration = HubConfiguration(port: port, limits: HubLimits(deviceRecordsPerSecond: 0))
            logger.warning("TEST-ONLY fault injection is on: \(faults)")
            let app = try Hub.buildApplication(
                configuration: configuration, store: store, logger: logger,
                middleware: FaultMiddleware(faults, logger: logger)
            ) { port in
                FileHandle.standardOutput.write(Data("bikepath-hub listening on 127.0.0.1:\(port)\n".utf8))
            }
            try await app.runService()
        }
    }
}
