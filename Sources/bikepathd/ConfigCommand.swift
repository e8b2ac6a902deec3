import ArgumentParser
import BikePathCLI
import BikePathDaemon
import Foundation

/// `bikepathd config check|show`.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check or show the daemon's configuration.",
        subcommands: [Check.self, Show.self]
    )

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a configuration file; names the line, key and reason of every bad value.",
            discussion: "Exit status 0 when the file is good, 78 (EX_CONFIG) when it is not. Unknown keys are errors."
        )

        @Argument(help: "The file (default /etc/bikepath/bikepathd.toml).")
        var file: String?
        /// `--config FILE`, the spelling every other command takes, works here as the positional does.
        @Option(help: ArgumentHelp("The file, as every other command names it (same as the positional FILE).", valueName: "file"))
        var config: String?

        func validate() throws {
            if let file, let config, file != config {
                throw ValidationError("two files named: '\(file)' and --config '\(config)'; give one")
            }
        }

        func run() async throws {
            let status = await ConfigurationCheck.run(named: file ?? config)
            if status != 0 { throw ExitCode(status) }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the effective configuration (the file with the flags on top), every key written out."
        )

        @OptionGroup var options: DaemonOptions
        @Flag(help: "JSON instead of TOML.") var json = false

        func run() throws {
            do {
                let c = try options.effectiveConfiguration()
                print(json ? c.jsonText() : c.tomlText())
            } catch {
                throw failWithConfigurationProblems(error)
            }
        }
    }
}
