import BikePathCore
import Foundation
import GRDB

/// Places on SQLite: table `places` with each name's `PlaceSearch.key`, FTS5's trigram index
/// of the keys (`places_fts`, external content: it holds the index, `places` the text) and
/// how many places hold each trigram (`place_trigrams`); steps v14-places and v20-place-keys.
extension SQLiteHubStore {
    public func replacePlaces(_ places: [Place]) async throws {
        try await pool.write { db in try Self.writePlaces(db, places) }
    }

    /// Every place, its key and the trigram counts in place of what was stored; the import
    /// and step v20-place-keys (which keys the places an earlier build stored).
    static func writePlaces(_ db: Database, _ places: [Place]) throws {
        try db.execute(sql: "DELETE FROM places; DELETE FROM place_trigrams")
        let place = try db.cachedStatement(sql: "INSERT INTO places (osm_id, name, kind, lat, lon, key) VALUES (?, ?, ?, ?, ?, ?)")
        for p in places {
            try place.execute(arguments: [p.osmID, p.name, p.kind, p.position.latitude, p.position.longitude, PlaceSearch.key(p.name)])
        }
        // The index made again from `places` (an external-content table follows no change by itself).
        try db.execute(sql: "INSERT INTO places_fts (places_fts) VALUES ('rebuild')")
        let count = try db.cachedStatement(sql: "INSERT INTO place_trigrams VALUES (?, ?)")
        for (trigram, places) in PlaceSearch.trigramCounts(places) { try count.execute(arguments: [trigram, places]) }
    }

    static func keyStoredPlaces(_ db: Database) throws {
        let places = try Row.fetchAll(db, sql: "SELECT osm_id, name, kind, lat, lon FROM places").map(Self.place)
        try writePlaces(db, places)
    }

    /// The names holding `search.minShared` of its trigrams: FTS5 finds the rows holding one
    /// of the probe's (an OR of trigram phrases; a trigram is letters, digits and spaces, so
    /// it needs no quoting), `instr` counts each one's, in `PlaceSearch`'s candidate order.
    public func placeCandidates(_ search: PlaceSearch) async throws -> [Place] {
        let trigrams = search.trigrams
        guard !trigrams.isEmpty else { return [] }
        let held = trigrams.map { _ in "(instr(key, ?) > 0)" }.joined(separator: " + ")
        return try await pool.read { db in
            var counts: [String: Int] = [:]
            let marks = trigrams.map { _ in "?" }.joined(separator: ", ")
            for row in try Row.fetchAll(
                db, sql: "SELECT trigram, places FROM place_trigrams WHERE trigram IN (\(marks))", arguments: StatementArguments(trigrams))
            {
                counts[row[0]] = row[1]
            }
            let match = search.probe(counts: counts).map { "\"\($0)\"" }.joined(separator: " OR ")
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT osm_id, name, kind, lat, lon FROM (
                        SELECT osm_id, name, kind, lat, lon, \(held) AS held FROM places
                        WHERE rowid IN (SELECT rowid FROM places_fts WHERE places_fts MATCH ?)
                    ) WHERE held >= ? ORDER BY held DESC, length(name), osm_id LIMIT ?
                    """, arguments: StatementArguments(trigrams) + [match, search.minShared, PlaceSearch.maxCandidates]
            ).map(Self.place)
        }
    }

    private static func place(_ row: Row) -> Place {
        Place(osmID: row[0], name: row[1], kind: row[2], position: Coordinate(latitude: row[3], longitude: row[4]))
    }

    public func placesExtent() async throws -> BoundingBox? {
        try await pool.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT min(lon), min(lat), max(lon), max(lat) FROM places"),
                let west: Double = row[0], let south: Double = row[1], let east: Double = row[2], let north: Double = row[3]
            else { return nil }
            return BoundingBox(west: west, south: south, east: east, north: north)
        }
    }
}
