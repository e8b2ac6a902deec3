import BikePathHub
import BikePathTestSupport

/// Real places of central London for tests: those the hub's own OSM import (`OSMImport`,
/// through Debian's osmium-tool) reads from the extract `RealExtract` names.
enum LondonPlaces {
    static var available: Bool { RealExtract.available }

    static func load() throws -> [Place] { try OSMImport.read(path: RealExtract.central).places }
}
