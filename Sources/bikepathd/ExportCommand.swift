import ArgumentParser
import BikePathCLI
import BikePathDaemon
import BikePathStore

/// `bikepathd export --format gpx|geojson TRIP`.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export a trip as GPX 1.1 (obstacles as waypoints) or GeoJSON.")
    @OptionGroup var options: StoreOptions
    @Option(help: "gpx or geojson (default gpx; with --json, geojson).") var format: ExportFormat?
    @Argument(
        help:
            "Trip: its id, or its draft as `drafts` takes it — the draft's id, a unique prefix of it, or its number in `bikepathd drafts list`."
    )
    var trip: String

    func validate() throws {
        do { _ = try ExportArguments.format(format, json: options.json) } catch { throw ValidationError(error.description) }
    }

    func run() async throws {
        let written = try await options.run { try ExportArguments.format(format, json: options.json) }
        let store = try await options.openForReading()
        print(try await options.run { try store.export(trip: try store.resolveTripID(trip), format: written) }, terminator: "")
    }
}

extension ExportFormat: ExpressibleByArgument {}

/// `bikepathd stats`: totals over all trips.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Totals over all trips: distance, time, CO2 avoided, milestones reached.")
    @OptionGroup var options: StoreOptions

    func run() async throws {
        let store = try await options.openForReading()
        let s = try await options.run { try await store.statistics() }
        options.emit(StatsJSON(s)) { StatsText.render(s) }
    }
}
