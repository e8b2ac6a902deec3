import BikePathCore
import Foundation
import PostgresNIO

/// Places on PostgreSQL: table `places` with each name's `PlaceSearch.key` under pg_trgm's
/// GIN index, and how many places hold each trigram (`place_trigrams`), steps v14-places
/// and v20-place-keys.
extension PostgresHubStore {
    public func replacePlaces(_ places: [Place]) async throws {
        try await client.withTransaction(logger: logger) { conn in try await Self.writePlaces(conn, places, logger) }
    }

    /// Every place, its key and the trigram counts in place of what was stored; the import
    /// and step v20-place-keys (which keys the places an earlier build stored).
    static func writePlaces(_ conn: PostgresConnection, _ places: [Place], _ logger: Logger) async throws {
        try await conn.query("DELETE FROM places", logger: logger)
        try await conn.query("DELETE FROM place_trigrams", logger: logger)
        // A batch a statement, as arrays: one round trip per 5,000 rows, not one each.
        for batch in places.batches(of: rowsPerStatement) {
            try await conn.query(
                """
                INSERT INTO places (osm_id, name, kind, lat, lon, key)
                SELECT * FROM unnest(\(batch.map(\.osmID))::text[], \(batch.map(\.name))::text[], \(batch.map(\.kind))::text[],
                    \(PostgresNumbers(batch.map(\.position.latitude)))::float8[], \(PostgresNumbers(batch.map(\.position.longitude)))::float8[],
                    \(batch.map { PlaceSearch.key($0.name) })::text[])
                """, logger: logger)
        }
        let counts = Array(PlaceSearch.trigramCounts(places))
        for batch in counts.batches(of: rowsPerStatement) {
            try await conn.query(
                "INSERT INTO place_trigrams SELECT * FROM unnest(\(batch.map(\.key))::text[], \(batch.map(\.value))::int[])",
                logger: logger)
        }
    }

    static func keyStoredPlaces(_ conn: PostgresConnection, _ logger: Logger) async throws {
        var places: [Place] = []
        for try await (id, name, kind, lat, lon) in try await conn.query("SELECT osm_id, name, kind, lat, lon FROM places", logger: logger)
            .decode((String, String, String, Double, Double).self)
        {
            places.append(Place(osmID: id, name: name, kind: kind, position: Coordinate(latitude: lat, longitude: lon)))
        }
        try await writePlaces(conn, places, logger)
    }

    /// The names holding `search.minShared` of its trigrams: pg_trgm's index finds those
    /// holding one of the probe's (`LIKE` patterns; a trigram is letters, digits and spaces,
    /// none a `LIKE` wildcard), `strpos` counts each one's, in `PlaceSearch`'s candidate order.
    public func placeCandidates(_ search: PlaceSearch) async throws -> [Place] {
        let trigrams = search.trigrams
        guard !trigrams.isEmpty else { return [] }
        var counts: [String: Int] = [:]
        for try await (trigram, places) in try await client.query(
            "SELECT trigram, places FROM place_trigrams WHERE trigram = ANY(\(trigrams)::text[])", logger: logger
        ).decode((String, Int).self) {
            counts[trigram] = places
        }
        // The trigrams held as a sum of one test each, not an unnest per row (with the ranking's
        // numeric trigrams, bench/places.sh's p50 went from 73 to 44 ms, debug build).
        var query = PostgresQuery(unsafeSQL: "SELECT osm_id, name, kind, lat, lon FROM (SELECT osm_id, name, kind, lat, lon, ")
        query.sql += trigrams.indices.map { "(strpos(key, $\($0 + 1)) > 0)::int" }.joined(separator: " + ")
        for t in trigrams { query.binds.append(t) }
        query.sql += " AS held FROM places WHERE key LIKE ANY ($\(trigrams.count + 1)::text[])) c"
        query.binds.append(search.probe(counts: counts).map { "%\($0)%" })
        query.sql += " WHERE held >= \(search.minShared) ORDER BY held DESC, length(name), osm_id LIMIT \(PlaceSearch.maxCandidates)"
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
