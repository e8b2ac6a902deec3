import BikePathCore
import Foundation
import Logging
import PostgresNIO

/// OpenStreetMap's streets on PostgreSQL (table of migration v13-streets), with a PostGIS
/// line each for the GiST index the box reads go through.
extension PostgresHubStore {
    public func replaceStreets(_ edges: [StreetEdge]) async throws -> StreetReplacement {
        try await client.withTransaction(logger: logger) { conn in
            let transfer = try await Self.transferPlan(conn, new: edges, logger)
            try await conn.query("DELETE FROM streets", logger: logger)
            for chunk in edges.batches(of: Self.rowsPerStatement) {
                let boxes = chunk.map(\.bounds)
                // No NULL inside a bound text[]: an absent tag goes as "" and comes back NULL
                // (the import never keeps an empty value).
                func text(_ value: (StreetEdge) -> String?) -> [String] { chunk.map { value($0) ?? "" } }
                try await conn.query(
                    """
                    INSERT INTO streets (\(unescaped: StreetEdge.storedColumns), south, west, north, east, geom)
                    SELECT w, f, t, p, len, h, NULLIF(n, ''), NULLIF(su, ''), NULLIF(sm, ''), NULLIF(cl, ''), NULLIF(cr, ''),
                        NULLIF(b, ''), d, s, we, no, ea, ST_GeomFromText('LINESTRING(' || p || ')', 4326)
                    FROM unnest(\(PostgresNumbers(chunk.map(\.key.way)))::bigint[], \(PostgresNumbers(chunk.map(\.key.from)))::bigint[],
                                \(PostgresNumbers(chunk.map(\.key.to)))::bigint[], \(chunk.map(\.pointsText))::text[],
                                \(PostgresNumbers(chunk.map(\.lengthMeters)))::float8[], \(chunk.map(\.highway))::text[],
                                \(text(\.name))::text[], \(text(\.surface))::text[], \(text(\.smoothness))::text[],
                                \(text(\.cyclewayLeft))::text[], \(text(\.cyclewayRight))::text[], \(text(\.bicycle))::text[],
                                \(chunk.map(\.direction.rawValue))::text[], \(PostgresNumbers(boxes.map(\.south)))::float8[],
                                \(PostgresNumbers(boxes.map(\.west)))::float8[], \(PostgresNumbers(boxes.map(\.north)))::float8[],
                                \(PostgresNumbers(boxes.map(\.east)))::float8[])
                        AS u(w, f, t, p, len, h, n, su, sm, cl, cr, b, d, s, we, no, ea)
                    """, logger: logger)
            }
            try await Self.add(transfer.increments, conn, logger: logger)
            if !transfer.moved.isEmpty {
                let (w, f, t) = (transfer.moved.map(\.way), transfer.moved.map(\.from), transfer.moved.map(\.to))
                for table in ["street_evidence", "street_evidence_riders"] {
                    try await conn.query(
                        """
                        DELETE FROM \(unescaped: table) WHERE (way_id, from_node, to_node) IN
                            (SELECT * FROM unnest(\(PostgresNumbers(w))::bigint[], \(PostgresNumbers(f))::bigint[], \(PostgresNumbers(t))::bigint[]))
                        """, logger: logger)
                }
            }
            return StreetReplacement(movedEvidence: transfer.moved.count, receivedEvidence: Set(transfer.increments.map(\.key)).count)
        }
    }

    /// Where the stored streets' evidence goes when `new` replaces them: the stored keys are
    /// read whole (three integers a street), the evidence and geometry only of those dropped.
    private static func transferPlan(_ conn: PostgresConnection, new: [StreetEdge], _ logger: Logger) async throws
        -> StreetEvidenceTransfer.Plan
    {
        var keys = Set<StreetEdge.Key>()
        for try await (w, f, t) in try await conn.query("SELECT way_id, from_node, to_node FROM streets", logger: logger)
            .decode((Int64, Int64, Int64).self)
        {
            keys.insert(StreetEdge.Key(way: w, from: f, to: t))
        }
        let dropped = keys.subtracting(new.map(\.key))
        guard !dropped.isEmpty else { return StreetEvidenceTransfer.Plan(increments: [], moved: []) }
        try await conn.query(PostgresQuery(unsafeSQL: StreetEvidenceTransfer.createDropped), logger: logger)
        for chunk in Array(dropped).batches(of: rowsPerStatement) {
            try await conn.query(
                """
                INSERT INTO dropped_streets SELECT * FROM unnest(\(PostgresNumbers(chunk.map(\.way)))::bigint[],
                    \(PostgresNumbers(chunk.map(\.from)))::bigint[], \(PostgresNumbers(chunk.map(\.to)))::bigint[])
                """, logger: logger)
        }
        var rated: [StreetEdge] = []
        for try await row in try await conn.query(PostgresQuery(unsafeSQL: StreetEvidenceTransfer.droppedRatedStreets), logger: logger) {
            rated.append(try edge(row))
        }
        var evidence: [StreetEvidenceTransfer.StoredEvidence] = []
        for try await row in try await conn.query(PostgresQuery(unsafeSQL: StreetEvidenceTransfer.droppedEvidence), logger: logger) {
            let c = row.makeRandomAccess()
            evidence.append(
                StreetEvidenceTransfer.StoredEvidence(
                    key: StreetEdge.Key(
                        way: try c[0].decode(Int64.self), from: try c[1].decode(Int64.self), to: try c[2].decode(Int64.self)),
                    way: try c[3].decode(String.self), trips: try c[4].decode(Int.self), lastDay: try c[5].decode(Int?.self),
                    ratings: try (6...9).map { try c[$0].decode(Int.self) }, roughnessSum: try c[10].decode(Double.self),
                    roughnessTrips: try c[11].decode(Int.self)))
        }
        var riders: [(key: StreetEdge.Key, device: String)] = []
        for try await (w, f, t, device) in try await conn.query(
            PostgresQuery(unsafeSQL: StreetEvidenceTransfer.droppedRiders), logger: logger
        )
        .decode((Int64, Int64, Int64, String).self) {
            riders.append((StreetEdge.Key(way: w, from: f, to: t), device))
        }
        try await conn.query(PostgresQuery(unsafeSQL: StreetEvidenceTransfer.dropDropped), logger: logger)
        return StreetEvidenceTransfer.plan(
            old: rated, oldKeys: keys, evidence: StreetEvidenceTransfer.evidence(evidence, riders: riders), new: new)
    }

    /// GiST's `&&` compares float4 boxes, a little larger than the line's: the stored box's
    /// columns then keep exactly the edges SQLite's read keeps (`StreetsEndpointTests`).
    public func streets(in box: BoundingBox, limit: Int?) async throws -> [StreetEdge] {
        var out: [StreetEdge] = []
        let rows = try await client.query(
            """
            SELECT \(unescaped: StreetEdge.storedColumns) FROM streets
            WHERE geom && ST_MakeEnvelope(\(box.west), \(box.south), \(box.east), \(box.north), 4326)
                AND west <= \(box.east) AND east >= \(box.west) AND south <= \(box.north) AND north >= \(box.south)
            ORDER BY way_id, from_node, to_node LIMIT \(limit)
            """, logger: logger)
        for try await row in rows { out.append(try Self.edge(row)) }
        return out
    }

    /// A street as `StreetEdge.storedColumns` read it.
    private static func edge(_ row: PostgresRow) throws -> StreetEdge {
        let c = row.makeRandomAccess()
        return try StreetEdge(
            stored: c[0].decode(Int64.self), c[1].decode(Int64.self), c[2].decode(Int64.self), points: c[3].decode(String.self),
            length: c[4].decode(Double.self), highway: c[5].decode(String.self), name: c[6].decode(String?.self),
            surface: c[7].decode(String?.self), smoothness: c[8].decode(String?.self), cyclewayLeft: c[9].decode(String?.self),
            cyclewayRight: c[10].decode(String?.self), bicycle: c[11].decode(String?.self), direction: c[12].decode(String.self))
    }

    public func streetCount() async throws -> Int {
        for try await count in try await client.query("SELECT count(*) FROM streets", logger: logger).decode(Int.self) { return count }
        return 0
    }

    public func streetTallies(in box: BoundingBox) async throws -> [StreetEdge.Key: StreetTally] {
        var out: [StreetEdge.Key: StreetTally] = [:]
        let rows = try await client.query(
            """
            SELECT \(unescaped: StreetTally.summedColumns) FROM street_evidence e
            JOIN streets s ON s.way_id = e.way_id AND s.from_node = e.from_node AND s.to_node = e.to_node
            WHERE s.geom && ST_MakeEnvelope(\(box.west), \(box.south), \(box.east), \(box.north), 4326)
                AND s.west <= \(box.east) AND s.east >= \(box.west) AND s.south <= \(box.north) AND s.north >= \(box.south)
            GROUP BY e.way_id, e.from_node, e.to_node
            """, logger: logger)
        for try await row in rows {
            let c = row.makeRandomAccess()
            let ratings = try (5...8).map { try c[$0].decode(Int.self) }
            out[StreetEdge.Key(way: try c[0].decode(Int64.self), from: try c[1].decode(Int64.self), to: try c[2].decode(Int64.self))] =
                StreetTally(
                    trips: try c[3].decode(Int.self), lastDay: try c[4].decode(Int?.self), ratings: ratings,
                    roughnessSum: try c[9].decode(Double.self), roughnessTrips: try c[10].decode(Int.self),
                    riders: try c[11].decode(Int.self))
        }
        return out
    }

    public func strandedStreetEvidence() async throws -> Int {
        for try await count in try await client.query(PostgresQuery(unsafeSQL: StreetTally.strandedCount), logger: logger).decode(Int.self)
        {
            return count
        }
        return 0
    }

    /// Adds `increments` to `street_evidence` and their riders to `street_evidence_riders`,
    /// in the caller's transaction (the network's commit): two statements for the batch.
    static func add(_ increments: [StreetIncrement], _ conn: PostgresConnection, logger: Logger) async throws {
        guard !increments.isEmpty else { return }
        let e = increments.map(\.evidence)
        try await conn.query(
            """
            INSERT INTO street_evidence
            SELECT w, f, t, d, n, NULLIF(l, -1), r0, r1, r2, r3, rs, rn
            FROM unnest(\(PostgresNumbers(increments.map(\.key.way)))::bigint[], \(PostgresNumbers(increments.map(\.key.from)))::bigint[],
                        \(PostgresNumbers(increments.map(\.key.to)))::bigint[], \(increments.map(\.way.rawValue))::text[],
                        \(PostgresNumbers(e.map(\.rides.trips)))::int[], \(PostgresNumbers(e.map { $0.rides.lastDay ?? -1 }))::int[],
                        \(PostgresNumbers(e.map { $0.rides.ratings[0] }))::int[], \(PostgresNumbers(e.map { $0.rides.ratings[1] }))::int[],
                        \(PostgresNumbers(e.map { $0.rides.ratings[2] }))::int[], \(PostgresNumbers(e.map { $0.rides.ratings[3] }))::int[],
                        \(PostgresNumbers(e.map(\.roughnessSum)))::float8[], \(PostgresNumbers(e.map(\.roughnessTrips)))::int[])
                AS u(w, f, t, d, n, l, r0, r1, r2, r3, rs, rn)
            ON CONFLICT (way_id, from_node, to_node, way) DO UPDATE SET trips = street_evidence.trips + excluded.trips,
                last_day = GREATEST(street_evidence.last_day, excluded.last_day),
                rated_optimal = street_evidence.rated_optimal + excluded.rated_optimal,
                rated_medium = street_evidence.rated_medium + excluded.rated_medium,
                rated_sufficient = street_evidence.rated_sufficient + excluded.rated_sufficient,
                rated_requires_maintenance = street_evidence.rated_requires_maintenance + excluded.rated_requires_maintenance,
                roughness_sum = street_evidence.roughness_sum + excluded.roughness_sum,
                roughness_trips = street_evidence.roughness_trips + excluded.roughness_trips
            """, logger: logger)
        let riders = increments.flatMap { i in i.evidence.rides.devices.sorted().map { (i.key, $0) } }
        try await conn.query(
            """
            INSERT INTO street_evidence_riders
            SELECT * FROM unnest(\(PostgresNumbers(riders.map(\.0.way)))::bigint[], \(PostgresNumbers(riders.map(\.0.from)))::bigint[],
                                 \(PostgresNumbers(riders.map(\.0.to)))::bigint[], \(riders.map(\.1))::text[])
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }
}
