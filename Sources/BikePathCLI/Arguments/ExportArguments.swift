import BikePathStore

/// `export`'s format as the rider asked for it: `--json` asks for JSON, and GeoJSON is the JSON
/// export (before, `export --json` printed GPX, XML, to a script that asked for JSON).
public enum ExportArguments {
    /// The format to write: `--format`, else GeoJSON with `--json`, else GPX.
    /// - Throws: `ExportArgumentError.gpxIsNotJSON` for `--format gpx --json`.
    public static func format(_ requested: ExportFormat?, json: Bool) throws(ExportArgumentError) -> ExportFormat {
        switch (requested, json) {
        case (.gpx?, true): throw .gpxIsNotJSON
        case (let f?, _): f
        case (nil, true): .geojson
        case (nil, false): .gpx
        }
    }
}

/// An export the command line asks for that cannot be written.
public enum ExportArgumentError: CommandArgumentError, Equatable {
    case gpxIsNotJSON

    public var description: String {
        switch self {
        case .gpxIsNotJSON: "--json asks for JSON and GPX is XML: drop --json for GPX, or use --format geojson (JSON)"
        }
    }
}
