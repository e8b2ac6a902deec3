import BikePathCore
import BikePathFixtures
import BikePathHub
import BikePathTestSupport
import Foundation

/// Real places of central London for tests, read from
/// ../shared/datasets/osm/central-london.osm.pbf (© OpenStreetMap contributors, ODbL 1.0;
/// the Valhalla routing engine's benchmark extract, as the datasets' README says) with
/// Debian's osmium-tool as OPL (`OPLPlaces`): test code standing in for the OSM import.
enum LondonPlaces {
    static let file = Paths.datasets + "/osm/central-london.osm.pbf"
    static var available: Bool {
        FileManager.default.isReadableFile(atPath: file) && FileManager.default.isExecutableFile(atPath: "/usr/bin/osmium")
    }

    struct Unreadable: Error { var reason: String }

    static func load() throws -> [Place] {
        let out = try runCommand("/usr/bin/osmium", ["add-locations-to-ways", "-f", "opl", file], timeout: 60)
        guard out.status == 0 else { throw Unreadable(reason: "osmium: \(out.err)") }
        return OPLPlaces.places(out.out).map {
            Place(osmID: $0.osmID, name: $0.name, kind: $0.kind, position: Coordinate(latitude: $0.latitude, longitude: $0.longitude))
        }
    }
}
