import ArgumentParser
import BikePathCLI
import BikePathCore
import BikePathDaemon
import BikePathStore

/// `bikepathd calibration show|reset`: the detector sensitivity fitted from the rider's
/// answers about earlier drafts (docs/chain.md "Calibration").
struct CalibrationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibration",
        abstract: "Show or reset the detector calibration learnt from your draft reviews.",
        subcommands: [Show.self, Reset.self])

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Per-kind sensitivity and the answers it comes from.")
        @OptionGroup var options: StoreOptions

        func run() async throws {
            let store = try await options.open()
            let report = try await options.run { try store.calibrationReport() }
            options.emit(CalibrationJSON(report)) { CalibrationText.render(report) }
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget every answer and return to the factory sensitivity (after a new mount or tyres).")
        @OptionGroup var options: StoreOptions

        func run() async throws {
            let store = try await options.open()
            try await options.run { try store.resetCalibration() }
            let report = try await options.run { try store.calibrationReport() }
            options.emit(CalibrationJSON(report)) { "calibration reset: factory sensitivity\n" + CalibrationText.render(report) }
        }
    }
}
