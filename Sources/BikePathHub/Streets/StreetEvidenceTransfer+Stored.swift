import BikePathCore

/// What both stores read for `StreetEvidenceTransfer.plan`, in the same SQL: only the streets
/// a re-import drops, whose keys go into a temporary table first. A mature hub's evidence
/// covers most of its streets; a refresh re-keys a few hundred edges of a city's ~100,000.
extension StreetEvidenceTransfer {
    /// The keys of the stored streets the new streets drop; made and dropped inside the
    /// import's transaction (both stores roll a temporary table's creation back with it).
    static let createDropped =
        "CREATE TEMP TABLE dropped_streets (way_id BIGINT NOT NULL, from_node BIGINT NOT NULL, to_node BIGINT NOT NULL)"
    static let dropDropped = "DROP TABLE dropped_streets"

    /// The dropped streets any evidence is on, as `StreetEdge.storedColumns`.
    static let droppedRatedStreets = """
        SELECT \(StreetEdge.storedColumns) FROM streets s JOIN dropped_streets d USING (way_id, from_node, to_node)
        WHERE EXISTS (SELECT 1 FROM street_evidence e WHERE e.way_id = s.way_id AND e.from_node = s.from_node AND e.to_node = s.to_node)
        """

    /// The dropped streets' evidence, in `StoredEvidence`'s order.
    static let droppedEvidence = """
        SELECT e.way_id, e.from_node, e.to_node, e.way, e.trips, e.last_day, e.rated_optimal, e.rated_medium, e.rated_sufficient,
            e.rated_requires_maintenance, e.roughness_sum, e.roughness_trips
        FROM street_evidence e JOIN dropped_streets d USING (way_id, from_node, to_node)
        """

    /// The dropped streets' riders: key, device.
    static let droppedRiders = """
        SELECT r.way_id, r.from_node, r.to_node, r.device_id FROM street_evidence_riders r
        JOIN dropped_streets d USING (way_id, from_node, to_node)
        """

    /// One row of `droppedEvidence`, as a store's driver decodes it.
    struct StoredEvidence {
        var key: StreetEdge.Key
        var way: String
        var trips: Int
        var lastDay: Int?
        /// Trips per rating, best first (`PathStatus.allCases`).
        var ratings: [Int]
        var roughnessSum: Double
        var roughnessTrips: Int
    }

    /// The evidence of `rows`, per street and way, with each street's `riders` in every way
    /// it was ridden (the riders table keeps a street's riders, not a way's).
    static func evidence(_ rows: [StoredEvidence], riders: [(key: StreetEdge.Key, device: String)]) -> [StreetEdge.Key: Evidence] {
        var out: [StreetEdge.Key: Evidence] = [:]
        for row in rows {
            guard let way = StreetMatch.Way(rawValue: row.way) else { continue }
            var e = StreetEvidence()
            (e.rides.trips, e.rides.lastDay, e.rides.ratings) = (row.trips, row.lastDay, row.ratings)
            (e.roughnessSum, e.roughnessTrips) = (row.roughnessSum, row.roughnessTrips)
            out[row.key, default: [:]][way] = e
        }
        for (key, device) in riders {
            out[key] = out[key]?.mapValues { evidence in
                var e = evidence
                e.rides.devices.insert(device)
                return e
            }
        }
        return out
    }
}
