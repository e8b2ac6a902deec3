import BikePathHub
import BikePathTestSupport
import Foundation

/// Real places of central London for tests, read from
/// ../shared/datasets/osm/central-london.osm.pbf (© OpenStreetMap contributors, ODbL 1.0;
/// the Valhalla routing engine's benchmark extract, as the datasets' README says) by the
/// hub's own OSM import (`OSMImport`, through Debian's osmium-tool).
enum LondonPlaces {
    static let file = Paths.datasets + "/osm/central-london.osm.pbf"
    static var available: Bool {
        FileManager.default.isReadableFile(atPath: file) && FileManager.default.isExecutableFile(atPath: "/usr/bin/osmium")
    }

    static func load() throws -> [Place] { try OSMImport.read(path: file).places }
}
