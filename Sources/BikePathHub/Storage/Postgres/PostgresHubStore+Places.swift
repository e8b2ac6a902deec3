import BikePathCore
import Foundation
import PostgresNIO

/// Places on PostgreSQL (table `places`, pg_trgm's GIN index on lower(name), step v14-places).
extension PostgresHubStore {
    public func replacePlaces(_ places: [Place]) async throws {
        try await client.withTransaction(logger: logger) { conn in
            try await conn.query("DELETE FROM places", logger: logger)
            // A batch a statement, as arrays: one round trip per 5,000 places, not one each.
            for start in stride(from: 0, to: places.count, by: 5_000) {
                let batch = places[start..<min(start + 5_000, places.count)]
                try await conn.query(
                    """
                    INSERT INTO places (osm_id, name, kind, lat, lon)
                    SELECT * FROM unnest(\(batch.map(\.osmID))::text[], \(batch.map(\.name))::text[], \(batch.map(\.kind))::text[],
                        \(PostgresNumbers(batch.map(\.position.latitude)))::float8[], \(PostgresNumbers(batch.map(\.position.longitude)))::float8[])
                    """, logger: logger)
            }
        }
    }

    /// Names holding any of the windows (`LIKE` patterns the trigram index answers), in
    /// `PlaceSearch`'s candidate order.
    public func placeCandidates(_ search: PlaceSearch) async throws -> [Place] {
        let windows = search.windows
        guard !windows.isEmpty else { return [] }
        // The windows held as a sum of one test each, not an unnest per row (with the ranking's
        // numeric trigrams, bench/places.sh's p50 went from 73 to 44 ms, debug build).
        var query = PostgresQuery(
            unsafeSQL: "SELECT osm_id, name, kind, lat, lon FROM places WHERE lower(name) LIKE ANY ($1::text[]) ORDER BY ")
        query.binds.append(windows.map { "%\($0)%" })
        query.sql += windows.indices.map { "(strpos(lower(name), $\($0 + 2)) > 0)::int" }.joined(separator: " + ")
        for w in windows { query.binds.append(w) }
        query.sql += " DESC, length(name), osm_id LIMIT \(PlaceSearch.maxCandidates)"
        var out: [Place] = []
        for try await (id, name, kind, lat, lon) in try await client.query(query, logger: logger).decode(
            (String, String, String, Double, Double).self)
        {
            out.append(Place(osmID: id, name: name, kind: kind, position: Coordinate(latitude: lat, longitude: lon)))
        }
        return out
    }

    public func placesExtent() async throws -> BoundingBox? {
        for try await (west, south, east, north) in try await client.query(
            "SELECT min(lon), min(lat), max(lon), max(lat) FROM places", logger: logger
        ).decode((Double?, Double?, Double?, Double?).self) {
            guard let west, let south, let east, let north else { return nil }
            return BoundingBox(west: west, south: south, east: east, north: north)
        }
        return nil
    }
}
