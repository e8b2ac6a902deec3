import BikePathCore
import BikePathTestSupport
import Foundation
import Testing

@testable import BikePathHub

/// `bikepath-hub import-osm` on the real central London extract (Valhalla's benchmark data,
/// ../shared/datasets/osm/README.md), through the real binary and Debian's osmium, into
/// SQLite and a real PostgreSQL. The tags checked are the extract's, read with
/// `osmium cat -f opl`.
@Suite(.serialized, .ownThreads, .enabled(if: RealExtract.available))
struct StreetImportTests {
    static let central = RealExtract.central
    static let world = BoundingBox(west: -180, south: -90, east: 180, north: 90)

    /// The storage options `import-osm` takes for a fresh store of `backend`, and the store.
    static func target(_ backend: Backend, _ dir: TempDir) throws -> (arguments: [String], storage: HubStorage) {
        let storage = try backend.storage(dir)
        switch storage {
        case .sqlite(let path): return (["--db", path], storage)
        case .postgres(let url): return (["--database", url], storage)
        }
    }

    static func importOSM(_ target: [String], _ file: String, path: String? = nil) async throws -> (
        status: Int32, out: String, err: String
    ) {
        let hub = try #require(builtExecutable("bikepath-hub"))
        // `env` sets PATH for the hub alone (how an operator's machine without osmium looks).
        let environment = path.map { ["PATH=\($0)"] } ?? []
        return try await runProcess("/usr/bin/env", environment + [hub, "import-osm"] + target + [file])
    }

    static func streets(_ storage: HubStorage) async throws -> (count: Int, edges: [StreetEdge]) {
        try await storage.withStore(logger: Fixtures.logger) { store in (try await store.streetCount(), try await store.streets(in: world))
        }
    }

    /// What a search for Goswell Road finds among the stored places.
    static func goswellPlaces(_ storage: HubStorage) async throws -> [Place] {
        try await storage.withStore(logger: Fixtures.logger) { store in
            try await store.places(matching: "Goswell Road", near: nil, limit: 10).map(\.place)
        }
    }

    @Test func bothStoresHoldTheSameRealStreetsWithTheirTags() async throws {
        var read: [(Backend, [StreetEdge])] = []
        for backend in Backend.available {
            let dir = try TempDir()
            defer { dir.cleanup() }
            let (arguments, storage) = try Self.target(backend, dir)
            let result = try await Self.importOSM(arguments, Self.central)
            #expect(result.status == 0, "\(backend): \(result.err)")
            #expect(result.out.contains("street data © OpenStreetMap contributors (ODbL)"), "\(result.out)")
            let (count, edges) = try await Self.streets(storage)
            #expect(result.out.hasPrefix("imported \(count) street edges"), "\(result.out)")
            // The import stores the extract's named places too: the street is found by name.
            #expect(result.out.contains(" named places stored"), "\(result.out)")
            let found = try await Self.goswellPlaces(storage)
            #expect(found.contains { $0.name == "Goswell Road" && $0.kind == "street" }, "\(backend): \(found)")
            read.append((backend, edges))
        }
        let edges = try #require(read.first?.1)
        for (backend, other) in read.dropFirst() { #expect(other == edges, "\(backend) differs from \(read[0].0)") }
        // 1,467 of the extract's ways have a class kept by default (`osmium cat -f opl`), cut
        // into more edges at their junctions; all with a real length.
        #expect(edges.count > 1_467 && edges.allSatisfy { $0.lengthMeters > 0 && $0.points.count >= 2 }, "\(edges.count)")
        #expect(!edges.contains { ["proposed", "construction", "bus_stop"].contains($0.highway) })
        #expect(
            !edges.contains {
                ["footway", "pedestrian", "steps"].contains($0.highway) && !["yes", "designated", "permissive"].contains($0.bicycle ?? "")
            })

        // Old Street, w166594097: two nodes, primary, asphalt, a cycle lane each side.
        let oldStreet = try #require(edges.first { $0.key.way == 166_594_097 })
        let (a, b) = (Coordinate(latitude: 51.5240341, longitude: -0.0964449), Coordinate(latitude: 51.5239601, longitude: -0.0966709))
        #expect(
            oldStreet
                == StreetEdge(
                    key: .init(way: 166_594_097, from: 110_137, to: 5_784_145_765), points: [a, b], lengthMeters: Geodesic.distance(a, b),
                    highway: "primary", name: "Old Street", surface: "asphalt", cyclewayLeft: "lane", cyclewayRight: "lane"))
        // Goswell Road, w257776872: from n2632476628 to n108417 (Old Street's junction), cut where it meets other streets.
        let goswell = edges.filter { $0.key.way == 257_776_872 }
        #expect(goswell.first?.key.from == 2_632_476_628 && goswell.last?.key.to == 108_417, "\(goswell.map(\.key))")
        #expect(zip(goswell, goswell.dropFirst()).allSatisfy { $0.key.to == $1.key.from })
        #expect(goswell.allSatisfy { $0.name == "Goswell Road" && $0.highway == "primary" && $0.surface == "asphalt" })
        // Laystall Street: one way for all (w3076840), and one with a contraflow lane (w3076841: oneway:bicycle=no).
        #expect(edges.filter { $0.key.way == 3_076_840 }.map(\.direction) == [.forward])
        #expect(Set(edges.filter { $0.key.way == 3_076_841 }.map(\.direction)) == [.both])
    }

    /// A fresh store of `backend` in `dir` with the central extract imported: its storage
    /// options, the store, and the streets it holds.
    static func imported(_ backend: Backend, _ dir: TempDir) async throws -> (
        arguments: [String], storage: HubStorage, streets: (count: Int, edges: [StreetEdge])
    ) {
        let (arguments, storage) = try target(backend, dir)
        let result = try await importOSM(arguments, central)
        #expect(result.status == 0, "\(result.err)")
        return (arguments, storage, try await streets(storage))
    }

    @Test(arguments: Backend.available) func aReimportKeepsTheSameEdges(_ backend: Backend) async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let (arguments, storage, first) = try await Self.imported(backend, dir)
        let again = try await Self.importOSM(arguments, Self.central)
        #expect(again.status == 0, "\(again.err)")
        let second = try await Self.streets(storage)
        #expect(second.count == first.count && second.edges == first.edges)
    }

    /// Each bad input stops the import with its own message and leaves the streets imported before.
    @Test(arguments: Backend.available) func aBadImportLeavesTheStreetsStoredBefore(_ backend: Backend) async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let (arguments, storage, before) = try await Self.imported(backend, dir)
        let placesBefore = try await Self.goswellPlaces(storage)
        #expect(!placesBefore.isEmpty)

        let text = dir.file("streets.osm.pbf")
        try "<osm version=\"0.6\"></osm>\n".write(toFile: text, atomically: true, encoding: .utf8)
        let truncated = dir.file("truncated.osm.pbf")
        try Data(try Data(contentsOf: URL(fileURLWithPath: Self.central)).prefix(20_000)).write(to: URL(fileURLWithPath: truncated))
        // A real extract of the same file's cafés only: no street in it.
        let cafes = dir.file("cafes.osm.pbf")
        #expect(try await runProcess("/usr/bin/osmium", ["tags-filter", "-o", cafes, Self.central, "n/amenity=cafe"]).status == 0)
        let cases: [(file: String, path: String?, says: String)] = [
            (dir.file("missing.osm.pbf"), nil, "cannot read \(dir.file("missing.osm.pbf")): no such file"),
            (text, nil, "\(text) is not an OpenStreetMap PBF file"),
            (truncated, nil, "failed (exit"),
            (cafes, nil, "\(cafes) holds no street a bicycle may use"),
            (Self.central, "/nonexistent", "osmium is not installed (looked in PATH=/nonexistent)"),
        ]
        for c in cases {
            let result = try await Self.importOSM(arguments, c.file, path: c.path)
            #expect(result.status != 0 && result.err.contains(c.says), "\(c.file): \(result.err)")
            let after = try await Self.streets(storage)
            #expect(after.count == before.count && after.edges == before.edges, "\(c.file)")
            #expect(try await Self.goswellPlaces(storage) == placesBefore, "\(c.file)")
        }
    }
}
