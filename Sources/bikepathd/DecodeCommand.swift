import ArgumentParser
import BikePathCLI

/// `bikepathd decode FILE`: NMEA → one gpsd-style JSON object per fix on stdout.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode NMEA (a gpsd log or a recording) into one gpsd-style JSON fix per line on stdout.",
        discussion: "Only fix JSON goes to stdout; a summary of rejected input goes to stderr."
    )

    /// JSON lines are the only output; the flag is accepted so that existing scripts keep working.
    @Flag(name: .long, help: .hidden) var json = false
    @Argument(help: "A recording (.bpr) or a text NMEA log such as gpsd's test/daemon/*.log ('#' lines are comments).") var file: String

    func run() throws {
        if !FixDecoding.decode(path: file) { throw ExitCode(1) }
    }
}
