import BikePathCore
import Foundation
import GRDB

/// Places on SQLite (table `places` and FTS5's trigram index `places_fts`, step v14-places).
extension SQLiteHubStore {
    public func replacePlaces(_ places: [Place]) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM places; DELETE FROM places_fts")
            let place = try db.cachedStatement(sql: "INSERT INTO places VALUES (?, ?, ?, ?, ?)")
            let name = try db.cachedStatement(sql: "INSERT INTO places_fts (name, osm_id) VALUES (?, ?)")
            for p in places {
                try place.execute(arguments: [p.osmID, p.name, p.kind, p.position.latitude, p.position.longitude])
                try name.execute(arguments: [p.name, p.osmID])
            }
        }
    }

    /// Names holding any of the windows (an FTS5 OR of trigram phrases; each window is
    /// letters and digits only, so it needs no quoting), in `PlaceSearch`'s candidate order.
    public func placeCandidates(_ search: PlaceSearch) async throws -> [Place] {
        let windows = search.windows
        guard !windows.isEmpty else { return [] }
        let match = windows.map { "\"\($0)\"" }.joined(separator: " OR ")
        let held = windows.map { _ in "(instr(lower(name), ?) > 0)" }.joined(separator: " + ")
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT p.osm_id, p.name, p.kind, p.lat, p.lon FROM (
                        SELECT osm_id, \(held) AS held, length(name) AS length FROM places_fts WHERE places_fts MATCH ?
                        ORDER BY held DESC, length, osm_id LIMIT ?
                    ) f JOIN places p ON p.osm_id = f.osm_id ORDER BY f.held DESC, f.length, f.osm_id
                    """, arguments: StatementArguments(windows) + [match, PlaceSearch.maxCandidates]
            ).map { Place(osmID: $0[0], name: $0[1], kind: $0[2], position: Coordinate(latitude: $0[3], longitude: $0[4])) }
        }
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
