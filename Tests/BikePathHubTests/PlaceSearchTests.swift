import BikePathCore
import BikePathTestSupport
import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@testable import BikePathHub

/// Places by name (`PlaceStore`, `PlaceSearch`, `GET /v1/places`) on central London's real
/// places (`LondonPlaces`): a typo or an abbreviation still finds the street, both stores
/// answer the same places in the same order, an import replaces the last one's, and a query
/// the search cannot answer is refused with the reason.
@Suite(.ownThreads) struct PlaceSearchTests {
    /// Barbican station's stop, near which "Goswell Road"'s several ways and bus stops lie.
    static let barbican = Coordinate(latitude: 51.52019, longitude: -0.09869)
    static let queries = [
        "Goswel Road", "goswell rd", "Barbican", "barbicn", "Aldersgate Street", "Old Stret", "St Pauls", "cafe", "Smithfield",
        "Charterhouse Square", "Whitecross", "pub",
    ]

    static func london() throws -> [Place]? {
        guard LondonPlaces.available else {
            if ProcessInfo.processInfo.environment["CI"] == "true" { Issue.record("osmium-tool or the shared OSM datasets are missing") }
            return nil
        }
        return try LondonPlaces.load()
    }

    /// Each query's answers near Barbican and with no `near`, as "name|osm id|distance".
    static func answers(_ store: any HubStore) async throws -> [String: [String]] {
        var out: [String: [String]] = [:]
        for q in queries {
            for near in [nil, barbican] {
                let found = try await store.places(matching: q, near: near, limit: 10)
                out["\(q) near \(near.map { "\($0.latitude)" } ?? "-")"] = found.map {
                    "\($0.place.name)|\($0.place.osmID)|\($0.distanceMeters.map { String(format: "%.3f", $0) } ?? "-")"
                }
            }
        }
        return out
    }

    @Test(.timeLimitOnceRunning(.minutes(3)), arguments: Backend.available)
    func typosAndAbbreviationsFindTheRealStreet(_ backend: Backend) async throws {
        guard let places = try Self.london() else { return }
        #expect(places.count > 2_000, "central London's named places: \(places.count)")
        let dir = try TempDir()
        defer { dir.cleanup() }
        try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            try await store.replacePlaces(places)
            for q in ["Goswel Road", "goswell rd", "GOSWELL ROAD"] {
                let found = try await store.places(matching: q, near: Self.barbican, limit: 5)
                #expect(found.first?.place.name == "Goswell Road", "\(q): \(found.map(\.place.name))")
            }
            let barbican = try await store.places(matching: "Barbican", near: nil, limit: 5)
            #expect(barbican.first?.place.name == "Barbican", "\(barbican.map(\.place.name))")
            #expect(barbican.allSatisfy { $0.place.name.contains("Barbican") }, "\(barbican.map(\.place.name))")
            // Equal matches: the nearest first.
            let near = try await store.places(matching: "Goswell Road", near: Self.barbican, limit: 10).filter {
                $0.place.name == "Goswell Road"
            }
            let distances = near.compactMap(\.distanceMeters)
            #expect(distances.count >= 2 && distances == distances.sorted(), "\(distances)")
            #expect(try await store.places(matching: "Qwxzv Jkpq", near: nil, limit: 10).isEmpty)
        }
    }

    /// The stores' candidates are every name that can be an answer, found by the rarest
    /// trigrams only: for each query (typos, abbreviations, one word of two letters), each
    /// London place scoring `minMatch` or more is a candidate, each candidate holds
    /// `minShared` of the query's trigrams, and the probe leaves out the commonest trigrams.
    @Test(.timeLimitOnceRunning(.minutes(3)), arguments: Backend.available)
    func theCandidatesAreEveryPossibleAnswer(_ backend: Backend) async throws {
        guard let places = try Self.london() else { return }
        let dir = try TempDir()
        defer { dir.cleanup() }
        try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            try await store.replacePlaces(places)
            var checked = 0
            for q in Self.queries + ["Goswel", "Whtecross Stret", "A1", "Barbican Centre Car Park", "Londn Wall"] {
                let search = PlaceSearch(query: q)
                let candidates = try await store.placeCandidates(search)
                let ids = Set(candidates.map(\.osmID))
                #expect(
                    candidates.allSatisfy { search.sharedTrigrams($0.name) >= search.minShared },
                    "\(q): \(candidates.filter { search.sharedTrigrams($0.name) < search.minShared }.map(\.name))")
                guard candidates.count < PlaceSearch.maxCandidates else { continue }
                checked += 1
                let missed = places.filter { search.match($0.name) >= PlaceSearch.minMatch && !ids.contains($0.osmID) }
                #expect(missed.isEmpty, "\(q): answers that are not candidates: \(missed.map(\.name))")
            }
            #expect(checked >= Self.queries.count, "queries whose candidates stayed under the cap: \(checked)")
        }
        let long = PlaceSearch(query: "Barbican Centre Car Park"), counts = PlaceSearch.trigramCounts(places)
        let probe = long.probe(counts: counts), left = Set(long.trigrams).subtracting(probe)
        #expect(probe.count == long.trigrams.count - long.minShared + 1)
        #expect(left.allSatisfy { l in probe.allSatisfy { (counts[$0] ?? 0) <= (counts[l] ?? 0) } }, "\(probe) \(left)")
    }

    /// A name's key holds its trigrams as pg_trgm makes them, and no three characters
    /// across two words look like one.
    @Test func aKeyIsTheNamesPaddedWords() {
        #expect(PlaceSearch.key("Goswell Road") == "  goswell   road ")
        #expect(PlaceSearch.key("St. Pancras-Square, N1C") == "  st   pancras   square   n1c ")
        let search = PlaceSearch(query: "goswell rd")
        #expect(search.trigrams.contains("  g") && search.trigrams.contains("rd ") && search.trigrams.contains(" rd"))
        let key = PlaceSearch.key("Goswell Road")
        #expect(search.trigrams.filter { key.contains($0) }.count == search.sharedTrigrams("Goswell Road"))
    }

    /// Places stored by a build before step v20-place-keys (names indexed, no keys, no
    /// trigram counts) are keyed by the step and found as an import today finds them.
    @Test(.timeLimitOnceRunning(.minutes(2)), arguments: Backend.available)
    func placesStoredBeforeKeysAreKeyedByTheMigration(_ backend: Backend) async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let storage = try backend.storage(dir)
        let places = [
            Place(osmID: "w1", name: "Goswell Road", kind: "street", position: Coordinate(latitude: 51.5262, longitude: -0.1003)),
            Place(osmID: "n2", name: "Barbican", kind: "station", position: Coordinate(latitude: 51.5202, longitude: -0.0987)),
        ]
        try await storage.withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            try await store.replacePlaces(places)
        }
        // Back to step v19's places: the index over names, the step not applied.
        switch storage {
        case .sqlite(let path):
            let queue = try DatabaseQueue(path: path)
            try await queue.write { db in
                try db.execute(
                    sql: """
                        DROP TABLE place_trigrams; DROP TABLE places_fts; ALTER TABLE places DROP COLUMN key;
                        CREATE VIRTUAL TABLE places_fts USING fts5(name, osm_id UNINDEXED, tokenize = 'trigram');
                        INSERT INTO places_fts SELECT name, osm_id FROM places;
                        DELETE FROM grdb_migrations WHERE identifier = 'v20-place-keys';
                        """)
            }
            try queue.close()
        case .postgres(let url):
            try PostgresCluster.shared.get().psql(
                """
                DROP TABLE place_trigrams; DROP INDEX places_key_trigrams; ALTER TABLE places DROP COLUMN key;
                CREATE INDEX places_name_trigrams ON places USING GIN (lower(name) gin_trgm_ops);
                DELETE FROM hub_migrations WHERE version = 'v20-place-keys';
                """, database: try HubSchemaTests.database(url))
        }
        try await storage.withStore(logger: Fixtures.logger) { store in
            #expect(try await !store.appliedMigrations().contains("v20-place-keys"))
            try await store.migrate()
            #expect(try await store.places(matching: "goswel rd", near: nil, limit: 5).map(\.place) == [places[0]])
            #expect(try await store.places(matching: "Barbcan", near: nil, limit: 5).map(\.place) == [places[1]])
        }
    }

    /// The databases only find candidates and `PlaceSearch` ranks them: the same answers,
    /// names, OSM ids, distances and order, from SQLite and from PostgreSQL.
    @Test(.timeLimitOnceRunning(.minutes(3)), .enabled(if: Backend.available.contains(.postgres)))
    func bothStoresAnswerTheSame() async throws {
        guard let places = try Self.london() else { return }
        let dir = try TempDir()
        defer { dir.cleanup() }
        var each: [[String: [String]]] = []
        for backend in [Backend.sqlite, .postgres] {
            try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
                try await store.migrate()
                try await store.replacePlaces(places)
                each.append(try await Self.answers(store))
            }
        }
        let (sqlite, postgres) = (each[0], each[1])
        #expect(sqlite.values.filter { !$0.isEmpty }.count >= 20, "most queries find places: \(sqlite)")
        for key in sqlite.keys.sorted() {
            #expect(sqlite[key] == postgres[key], "\(key): SQLite \(sqlite[key] ?? []), PostgreSQL \(postgres[key] ?? [])")
        }
    }

    @Test(arguments: Backend.available)
    func anImportReplacesTheLastOne(_ backend: Backend) async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let first = [
            Place(osmID: "n1", name: "Goswell Road", kind: "street", position: Coordinate(latitude: 51.5262, longitude: -0.1003)),
            Place(osmID: "n2", name: "Barbican", kind: "station", position: Coordinate(latitude: 51.5202, longitude: -0.0987)),
        ]
        let second = [
            Place(osmID: "n3", name: "Smithfield Market", kind: "marketplace", position: Coordinate(latitude: 51.5195, longitude: -0.1010))
        ]
        try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            #expect(try await store.placesExtent() == nil)
            try await store.replacePlaces(first)
            #expect(try await store.places(matching: "Barbican", near: nil, limit: 10).map(\.place) == [first[1]])
            #expect(
                try await store.placesExtent()
                    == BoundingBox(west: -0.1003, south: 51.5202, east: -0.0987, north: 51.5262))
            try await store.replacePlaces(second)
            #expect(try await store.places(matching: "Barbican", near: nil, limit: 10).isEmpty)
            #expect(try await store.places(matching: "Goswell", near: nil, limit: 10).isEmpty)
            #expect(try await store.places(matching: "smithfeld", near: nil, limit: 10).map(\.place) == second)
            #expect(try await store.placesExtent() == BoundingBox(west: -0.1010, south: 51.5195, east: -0.1010, north: 51.5195))
        }
    }

    /// The rule alone: an exact name before a prefix before a word before a typo, and
    /// distance taking off at most `maxDistancePenalty`.
    @Test func theRankingRule() {
        let search = PlaceSearch(query: "Barbican")
        #expect(search.match("Barbican") == 1)
        #expect(search.match("barbicán") == 1)
        #expect(search.match("Barbican Centre") == 0.9)
        #expect(search.match("The Barbican") == 0.8)
        #expect(search.match("Barbcan") < 0.7 && search.match("Barbcan") >= PlaceSearch.minMatch)
        #expect(search.match("Moorgate") < PlaceSearch.minMatch)
        let here = Coordinate(latitude: 51.52, longitude: -0.1)
        let far = Place(osmID: "n1", name: "Barbican", kind: "station", position: Coordinate(latitude: 51.62, longitude: -0.1))
        let near = Place(osmID: "n2", name: "Barbican", kind: "bus_stop", position: here)
        let typo = Place(osmID: "n3", name: "Barbcan", kind: "cafe", position: here)
        // 11 km away the exact name loses 0.17 of its 1.0; the typo nearby scores under 0.7.
        #expect(search.rank([typo, far, near], near: here, limit: 10).map(\.place) == [near, far, typo])
        #expect(search.rank([typo, far, near], near: nil, limit: 2).map(\.place) == [far, near])
    }

    @Test func theEndpointAnswersGeoJSONAndRefusesWhatItCannotSearch() async throws {
        let long = String(repeating: "a", count: 101)
        try await HubContractTests.withHub(.sqlite) { client, store in
            try await store.replacePlaces([
                Place(osmID: "w42", name: "Goswell Road", kind: "street", position: Coordinate(latitude: 51.5262, longitude: -0.1003))
            ])
            let r = try await client.execute(
                uri: "/v1/places?q=goswel%20rd&near=\(Self.barbican.latitude),\(Self.barbican.longitude)&limit=3", method: .get)
            #expect(r.status == .ok && r.headers[.contentType] == "application/geo+json")
            let body = try #require(try JSONSerialization.jsonObject(with: Data(r.body.readableBytesView)) as? [String: Any])
            #expect(body["type"] as? String == "FeatureCollection")
            #expect(body["attribution"] as? String == "© OpenStreetMap contributors")
            let feature = try #require((body["features"] as? [[String: Any]])?.first)
            let properties = feature["properties"] as? [String: Any]
            #expect(properties?["name"] as? String == "Goswell Road" && properties?["kind"] as? String == "street")
            let metres = Geodesic.distance(Self.barbican, Coordinate(latitude: 51.5262, longitude: -0.1003)).rounded()
            #expect((properties?["distance_m"] as? NSNumber)?.doubleValue == metres, "\(properties ?? [:])")
            #expect((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double] == [-0.1003, 51.5262])
            let without = try await client.execute(uri: "/v1/places?q=Goswell", method: .get)
            #expect(!String(buffer: without.body).contains("distance_m") && String(buffer: without.body).contains("Goswell Road"))

            for (query, code) in [
                ("q=ab", "bad-query"), ("q=\(long)", "bad-query"), ("", "bad-query"),
                ("q=Goswell&near=51.5", "bad-point"), ("q=Goswell&near=91,0", "bad-point"), ("q=Goswell&limit=0", "bad-limit"),
                ("q=Goswell&limit=51", "bad-limit"), ("q=Goswell&limit=ten", "bad-limit"),
            ] {
                let refused = try await client.execute(uri: "/v1/places?\(query)", method: .get)
                let text = String(buffer: refused.body)
                #expect(refused.status == .badRequest && text.contains("\"error\":\"\(code)\""), "\(query): \(refused.status) \(text)")
            }

            let extent = try await client.execute(uri: "/v1/map/extent", method: .get)
            #expect(String(buffer: extent.body) == #"{"bbox":[-0.1003,51.5262,-0.1003,51.5262]}"#)
        }
    }
}
