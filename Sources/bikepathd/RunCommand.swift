import ArgumentParser
import BikePathCLI
import BikePathDaemon
import Foundation

/// `bikepathd run`: the daemon. Sources → chain → store → sync, with systemd
/// notification and watchdog, the status socket, SIGHUP reload and a clean
/// SIGTERM (docs/daemon.md). A missing gpsd, IMU or network makes it run
/// degraded and say so; only a bad configuration or an unusable store stop it.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the daemon (under systemd: Type=notify).",
        discussion: "SIGTERM/SIGINT: commit and exit. SIGHUP: reload the configuration file.")

    @OptionGroup var daemon: DaemonOptions

    @Option(help: ArgumentHelp("Feed this recording instead of the live sensors, as fast as possible, then exit.", valueName: "file"))
    var replay: String?

    @Option(
        help: ArgumentHelp(
            "With --replay: play at this many times real time instead of as fast as possible.",
            valueName: "factor"))
    var replaySpeed: Double?

    @Flag(help: "With --replay: print a JSON summary (records, outputs, RSS) on stdout at the end.")
    var summary = false

    func validate() throws {
        if let replaySpeed {
            guard replay != nil else { throw ValidationError("--replay-speed needs --replay") }
            guard replaySpeed > 0, replaySpeed.isFinite else { throw ValidationError("--replay-speed must be a positive number") }
        }
    }

    func run() async throws {
        // SIGHUP's default action ends the process, SIGUSR1's too. The reload and
        // sync services trap them while they run; before and after, they are ignored.
        signal(SIGHUP, SIG_IGN)
        signal(SIGUSR1, SIG_IGN)
        let configuration: DaemonConfiguration
        do { configuration = try daemon.effectiveConfiguration() } catch { throw failWithConfigurationProblems(error) }
        let status = await DaemonMain.run(
            configuration: configuration, input: replay.map { .recording(path: $0, speed: replaySpeed) } ?? .live,
            version: BikePathCommand.configuration.version,
            reload: { [options = self.daemon] () throws(ConfigurationError) in try options.effectiveConfiguration() }, summary: summary)
        if status != 0 { throw ExitCode(status) }
    }
}
