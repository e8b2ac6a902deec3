import BikePathAPI
import BikePathCLI
import BikePathDaemon
import Foundation
import Logging

/// `BikePathBench soak --hours H --db PATH --status-socket PATH [--config FILE]`
/// (bench/soak.sh): the whole daemon as `run` assembles it (`Daemon.make`), fed a
/// generated ride of H hours as fast as it takes it; prints the run's summary
/// (records, outputs, trips, RSS at each hour) as JSON.
enum Soak {
    static func run(_ options: BenchOptions) async throws {
        let hours = try options.double("hours", default: 24)
        var overrides = ConfigurationOverrides()
        overrides.storePath = try options.required("db")
        overrides.statusSocket = try options.required("status-socket")
        overrides.logLevel = .warning
        let configuration = try ConfigurationLoader.load(flag: options.string("config")).merging(overrides)
        DaemonLogging.bootstrap(level: configuration.log.level)
        let logger = Logger(label: "bikepath.bench.soak")
        let ride = SyntheticRideSource(hours: hours)
        let daemon = try await Daemon.make(
            configuration: configuration, input: .generated(ride, finished: { ride.finished }),
            version: "bench", reload: { () throws(ConfigurationError) in configuration },
            logger: logger)
        let report = try await daemon.run(logger: logger)
        // The document `run --summary` prints (docs/json.md), by the one encoder.
        print(try JSONText.document(RunSummaryJSON(report.summary)))
    }
}
