import ArgumentParser
import BikePathAPI
import BikePathCLI
import BikePathDaemon
import BikePathSensors
import Foundation

/// `bikepathd diagnose`: runs both sources for a few seconds and reports what a field
/// technician needs: is gpsd there, is there a fix, is the clock right, is the IMU there
/// and at what rate, and what to try for each problem.
struct DiagnoseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diagnose",
        abstract: "Check gpsd, the IMU, the store and sync; print what is wrong and what to try.",
        discussion: """
            Exit codes: 0 all required sensors present and without errors and no store problem;             2 a required sensor is missing or in error; 3 the sensors are fine but the store or sync has a problem             (docs/cli.md).
            """)

    @OptionGroup var sensors: SensorOptions
    @Option(help: "Seconds to watch the sources.") var duration: Double = 3
    @Option(
        help:
            "Sensors that must be present and without errors, comma-separated (gnss, imu), or none (default: gnss,imu — both are configured on every device).",
        transform: SensorKindList.parse) var require: SensorKindList = SensorKindList(kinds: SensorKind.allCases)
    @Option(
        name: .customLong(ConfigurationKey.flag(\.store.path)),
        help: "Store to check as well (default: $BIKEPATHD_DB, else the daemon's \(ConfigurationKey.path(\.store.path))).")
    var databasePath: String?
    /// `run`'s old spelling of `--db`. Without it `diagnose --store PATH` was answered
    /// "Did you mean '--no-store'?", the opposite of what was asked.
    @Option(name: .customLong("store"), help: .hidden) var storeAlias: String?
    @Flag(help: "Skip the store and sync checks.") var noStore = false
    @Flag(help: "Print JSON instead of text.") var json = false
    @Flag(help: "Show the sources' log lines.") var verbose = false

    func run() async throws {
        let diagnosis = try await SensorDiagnosis.watch(
            gnss: sensors.gpsd, imu: sensors.iio, seconds: duration,
            required: Set(require.kinds), logLevel: verbose ? .info : .critical)
        let storePath = databasePath ?? storeAlias ?? sensors.fileConfiguration.commandStorePath
        let store =
            await noStore ? nil : StoreDiagnosisReport.read(path: storePath, crashDetection: sensors.fileConfiguration.crash.enabled)
        let report = DiagnosisReport(
            sensors: diagnosis, store: store,
            required: Set(require.kinds))
        print(json ? snakeCaseJSONText(report) : report.text)
        if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
    }
}

/// `--require gnss,imu`.
struct SensorKindList: Sendable {
    var kinds: [SensorKind]

    static func parse(_ text: String) throws -> SensorKindList {
        do { return SensorKindList(kinds: try DiagnosisReport.requiredSensors(text)) } catch { throw ValidationError(error.description) }
    }
}
