import ArgumentParser
import BikePathCLI
import BikePathCore
import BikePathDaemon
import BikePathSensors

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `bikepathd import …`: turns other formats into a BikePath recording (.bpr).
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Convert a gpsd log or a GoPro CSV ride into a recording (.bpr).",
        subcommands: [GpsdLog.self, GoPro.self]
    )

    struct Output: ParsableArguments {
        @Option(name: .shortAndLong, help: "The recording to write (conventionally *.bpr).") var output: String
        @Flag(help: "Replace the output file if it exists.") var force = false
    }

    struct GpsdLog: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "gpsd-log",
            abstract: "Import a gpsd regression log (NMEA text; comments and binary noise are dropped).",
            discussion: "Receive times are synthesized from the sentences' UTC time of day (the log has none)."
        )

        @Argument(help: "The gpsd log (*.log).") var input: String
        @OptionGroup var out: Output

        func run() throws {
            try ImportCommand.reportingErrors {
                let (recording, stats) = try GpsdLogImporter.load(path: input, writer: ImportCommand.writerName)
                try recording.write(to: out.output, overwrite: out.force)
                standardErrorLine(ImportText.gpsdLog(out.output, stats))
            }
        }
    }

    struct GoPro: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "gopro",
            abstract: "Import a GoPro telemetry CSV ride (-accl.csv, -gyro.csv, -gps.csv).",
            discussion: """
                Give a PREFIX (e.g. path/GX010056) to use whichever of PREFIX-accl.csv, PREFIX-gyro.csv and \
                PREFIX-gps.csv exist, or name the files with --accl/--gyro/--gps. GPS rows become RMC+GGA sentences.
                """
        )

        @Argument(help: "Common prefix of the CSV files.") var prefix: String?
        @Option(help: "Accelerometer CSV (Milliseconds,AcclX,AcclY,AcclZ).") var accl: String?
        @Option(help: "Gyroscope CSV (Milliseconds,GyroX,GyroY,GyroZ).") var gyro: String?
        @Option(help: "GPS CSV (Milliseconds,Latitude,Longitude,Altitude,Speed,Speed3D,TS,GpsAccuracy,GpsFix).") var gps: String?
        @OptionGroup var out: Output

        func validate() throws {
            if prefix != nil && (accl != nil || gyro != nil || gps != nil) {
                throw ValidationError("give either a PREFIX or --accl/--gyro/--gps, not both")
            }
            if prefix == nil && accl == nil && gps == nil {
                throw ValidationError("give a PREFIX, or at least one of --accl and --gps")
            }
        }

        func run() throws {
            try ImportCommand.reportingErrors {
                let files = try prefix.map(ImportText.goproFiles) ?? GoProCSVImporter.Files(accl: accl, gyro: gyro, gps: gps)
                let (recording, stats) = try GoProCSVImporter.load(files, writer: ImportCommand.writerName)
                try recording.write(to: out.output, overwrite: out.force)
                standardErrorLine(ImportText.gopro(out.output, stats))
            }
        }
    }
}

extension ImportCommand {
    static let writerName = "bikepathd \(BikePathCommand.configuration.version)"

    /// Prints an importer or file error as one clear line and exits with status 1.
    static func reportingErrors(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let e as ImportError {
            standardErrorLine("error: \(e)")
            throw ExitCode(1)
        } catch let e as RecordingFileError {
            standardErrorLine("error: \(e)")
            throw ExitCode(1)
        }
    }
}
