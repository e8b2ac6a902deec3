import BikePathAPI
import BikePathCore
import Foundation
import GRDB

/// One line of `drafts list`.
public struct DraftSummary: Sendable, Equatable, Codable {
    public var id: String
    public var tripID: String
    public var state: DraftState
    public var startUTCNanoseconds: Int64?
    public var distanceMeters: Double
    /// The trip's duration, start to end.
    public var elapsedSeconds: Double
    /// Obstacles the draft shows (asked candidates and the rider's own, not dropped).
    public var obstacles: Int
    /// Detected candidates held back by the review budget.
    public var heldBack: Int
    public var pathStatus: PathStatus?
}

/// What a draft would publish: the trip, its path, the (edited) obstacles and
/// the road quality. This is also the payload that is confirmed, hashed and sent.
public struct DraftDocument: Sendable, Equatable, Codable {
    /// The trip a draft is about: times in ns (sample time and UTC), how it was closed, and its
    /// statistics.
    public struct Trip: Sendable, Equatable, Codable {
        public var id: String
        public var startTimeNanoseconds: Int64
        public var endTimeNanoseconds: Int64?
        public var startUTCNanoseconds: Int64?
        public var endUTCNanoseconds: Int64?
        public var closedBy: String?
        public var statistics: TripStatistics
    }
    /// One obstacle of a draft, as the rider reviews it: a detected candidate or the rider's
    /// own mark.
    public struct Obstacle: Sendable, Equatable, Codable {
        public var id: String
        public var eventID: String?
        public var kind: ObstacleKind
        public var timeNanoseconds: Int64?
        public var coordinate: Coordinate?
        public var dropped: Bool
        /// "detected" (a candidate) or "rider" (marked in the field, or added while reviewing).
        public var origin: String
        /// Past the review budget: not asked about, not published, still part of road quality.
        public var heldBack: Bool
        /// Review order of an asked candidate (1 first); nil for held-back and rider obstacles.
        public var reviewRank: Int?
        /// The detector's figures (0 for the rider's own).
        public var severity: Double
        public var confidence: Double
        public var strength: Double

        enum CodingKeys: String, CodingKey {
            case id, eventID, kind, timeNanoseconds, coordinate, dropped, origin, heldBack, reviewRank, severity, confidence, strength
        }

        /// Documents confirmed before schema v3 (queued for sync) lack the review fields.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(String.self, forKey: .id)
            eventID = try c.decodeIfPresent(String.self, forKey: .eventID)
            kind = try c.decode(ObstacleKind.self, forKey: .kind)
            timeNanoseconds = try c.decodeIfPresent(Int64.self, forKey: .timeNanoseconds)
            coordinate = try c.decodeIfPresent(Coordinate.self, forKey: .coordinate)
            dropped = try c.decode(Bool.self, forKey: .dropped)
            origin = try c.decode(String.self, forKey: .origin)
            heldBack = try c.decodeIfPresent(Bool.self, forKey: .heldBack) ?? false
            reviewRank = try c.decodeIfPresent(Int.self, forKey: .reviewRank)
            severity = try c.decodeIfPresent(Double.self, forKey: .severity) ?? 0
            confidence = try c.decodeIfPresent(Double.self, forKey: .confidence) ?? 0
            strength = try c.decodeIfPresent(Double.self, forKey: .strength) ?? 0
        }

        /// Creates an obstacle from its fields.
        public init(
            id: String, eventID: String?, kind: ObstacleKind, timeNanoseconds: Int64?, coordinate: Coordinate?,
            dropped: Bool, origin: String, heldBack: Bool, reviewRank: Int?, severity: Double, confidence: Double,
            strength: Double
        ) {
            self.id = id
            self.eventID = eventID
            self.kind = kind
            self.timeNanoseconds = timeNanoseconds
            self.coordinate = coordinate
            self.dropped = dropped
            self.origin = origin
            self.heldBack = heldBack
            self.reviewRank = reviewRank
            self.severity = severity
            self.confidence = confidence
            self.strength = strength
        }
    }
    /// One edit the rider made, in words: what (`action`) and to what (`detail`).
    public struct Edit: Sendable, Equatable, Codable {
        public var action: String
        public var detail: String
    }
    public var id: String
    public var state: DraftState
    public var pathStatus: PathStatus?
    public var trip: Trip
    public var path: [Coordinate]
    public var obstacles: [Obstacle]
    public var roadQuality: [RoadQualitySegment]
    public var edits: [Edit]

    /// Detected candidates held back by the review budget.
    public var heldBackCount: Int { obstacles.filter(\.heldBack).count }
}

/// A change the rider makes to a pending draft.
public enum DraftEdit: Sendable, Equatable {
    case setObstacleKind(obstacleID: String, ObstacleKind)
    case dropObstacle(obstacleID: String)
    /// A missed obstacle, placed at a sample time (its position is taken from the
    /// nearest stored track point) or at an explicit position.
    case addObstacle(ObstacleKind, time: SampleTime?, coordinate: Coordinate?)
    case setPathStatus(PathStatus)
}

enum Drafts {
    /// Makes the draft for a just-closed trip: its obstacles are copied into
    /// draft_obstacles, where the rider's edits go. The rider's own marks come as
    /// `origin = 'rider'`; of the detected candidates, the `reviewBudget` best
    /// (ReviewBudget) get a review rank and the rest are held back.
    static func create(_ db: Database, tripID: String, reviewBudget: Int) throws {
        guard try String.fetchOne(db, sql: "SELECT id FROM drafts WHERE trip_id = ?", arguments: [tripID]) == nil else { return }
        let id = DeviceID.make()
        try db.execute(
            sql: """
                INSERT INTO drafts (id, trip_id, seq, state) VALUES (?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM drafts), 'pending')
                """, arguments: [id, tripID])
        let events = try Row.fetchAll(
            db,
            sql: """
                SELECT id, obstacle_kind, time_ns, lat, lon, source, severity, confidence, strength FROM events
                WHERE trip_id = ? AND kind = 'obstacle' ORDER BY time_ns
                """, arguments: [tripID])
        let candidates = events.map { e in
            ReviewCandidate(
                source: ObstacleSource(rawValue: e["source"] ?? "") ?? .detected, severity: e["severity"] ?? 0,
                confidence: e["confidence"] ?? 0, strength: e["strength"] ?? 0,
                time: SampleTime(nanoseconds: e["time_ns"]))
        }
        let selection = ReviewBudget.select(candidates, budget: reviewBudget)
        var rank: [Int: Int] = [:]
        for (r, i) in selection.asked.enumerated() { rank[i] = r + 1 }
        let heldBack = Set(selection.heldBack)
        for (i, e) in events.enumerated() {
            try db.execute(
                sql: """
                    INSERT INTO draft_obstacles (id, draft_id, event_id, kind, time_ns, lat, lon, origin, held_back, review_rank)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    DeviceID.make(), id, e["id"], e["obstacle_kind"], e["time_ns"], e["lat"], e["lon"],
                    candidates[i].source.rawValue, heldBack.contains(i), rank[i],
                ])
        }
    }

    /// How far from the trip's path an added obstacle may be: the stored path is
    /// simplified to 5 m and GNSS is good to about 5–10 m, so 50 m is plainly on
    /// the route, and a typo (a digit off in a coordinate, kilometres away) is not.
    static let maxAddedObstacleDistanceMeters = 50.0

    static func requireInside(_ trip: DraftDocument.Trip, time: SampleTime?) throws {
        guard let time else { return }
        let end = trip.endTimeNanoseconds ?? trip.startTimeNanoseconds
        guard (trip.startTimeNanoseconds...end).contains(time.nanoseconds) else {
            let offset = Double(time.nanoseconds - trip.startTimeNanoseconds) / 1e9
            let length = Double(end - trip.startTimeNanoseconds) / 1e9
            throw StoreError.invalidEdit(String(format: "an added obstacle at %+.1f s lies outside the trip (0 … %.1f s)", offset, length))
        }
    }

    static func requireNear(_ path: [Coordinate], _ position: Coordinate) throws {
        guard let distance = Geodesic.distance(from: position, toPath: path) else {
            throw StoreError.invalidEdit("the trip has no path to place an obstacle on")
        }
        guard distance <= maxAddedObstacleDistanceMeters else {
            throw StoreError.invalidEdit(
                String(
                    format: "an added obstacle at %.6f,%.6f is %.0f m from the trip's path (at most %.0f m)",
                    position.latitude, position.longitude, distance, maxAddedObstacleDistanceMeters))
        }
    }

    static func state(_ db: Database, _ id: String) throws -> DraftState {
        guard let raw = try String.fetchOne(db, sql: "SELECT state FROM drafts WHERE id = ?", arguments: [id]) else {
            throw StoreError.noSuchDraft(id)
        }
        return DraftState(rawValue: raw) ?? .pending
    }

    static func transition(_ db: Database, _ id: String, to next: DraftState) throws {
        let current = try state(db, id)
        guard current.canBecome(next) else { throw StoreError.illegalTransition(draft: id, from: current, to: next) }
        try db.execute(sql: "UPDATE drafts SET state = ? WHERE id = ?", arguments: [next.rawValue, id])
    }

    static func document(_ db: Database, _ id: String) throws -> DraftDocument {
        guard let d = try Row.fetchOne(db, sql: "SELECT * FROM drafts WHERE id = ?", arguments: [id]) else {
            throw StoreError.noSuchDraft(id)
        }
        let tripID: String = d["trip_id"]
        guard let t = try StoredTrip.find(db, id: tripID) else { throw StoreError.noSuchTrip(tripID) }
        let trip = DraftDocument.Trip(
            id: tripID, startTimeNanoseconds: t.startTimeNanoseconds, endTimeNanoseconds: t.endTimeNanoseconds,
            startUTCNanoseconds: t.startUTCNanoseconds, endUTCNanoseconds: t.endUTCNanoseconds,
            closedBy: t.closedBy, statistics: t.statistics)
        // Asked candidates in review order, then the rider's own by time, then the held back.
        let obstacles = try Row.fetchAll(
            db,
            sql: """
                SELECT o.*, e.severity, e.confidence, e.strength FROM draft_obstacles o LEFT JOIN events e ON e.id = o.event_id
                WHERE o.draft_id = ? ORDER BY o.held_back, o.review_rank IS NULL, o.review_rank, o.time_ns, o.rowid
                """, arguments: [id]
        ).map { o in
            let lat: Double? = o["lat"], lon: Double? = o["lon"]
            return DraftDocument.Obstacle(
                id: o["id"], eventID: o["event_id"], kind: ObstacleKind(rawValue: o["kind"]) ?? .irregularity,
                timeNanoseconds: o["time_ns"], coordinate: lat.flatMap { la in lon.map { Coordinate(latitude: la, longitude: $0) } },
                dropped: o["dropped"], origin: o["origin"], heldBack: o["held_back"], reviewRank: o["review_rank"],
                severity: o["severity"] ?? 0, confidence: o["confidence"] ?? 0, strength: o["strength"] ?? 0)
        }
        let edits = try Row.fetchAll(db, sql: "SELECT action, detail FROM draft_edits WHERE draft_id = ? ORDER BY seq", arguments: [id])
            .map { DraftDocument.Edit(action: $0["action"], detail: $0["detail"]) }
        return DraftDocument(
            id: id, state: DraftState(rawValue: d["state"]) ?? .pending,
            pathStatus: (d["path_status"] as String?).flatMap(PathStatus.init(rawValue:)),
            trip: trip, path: Ingest.path(t.path), obstacles: obstacles,
            roadQuality: try RoadQuality.segments(db, tripID: tripID), edits: edits)
    }
}

enum RoadQuality {
    static func segments(_ db: Database, tripID: String) throws -> [RoadQualitySegment] {
        try Row.fetchAll(db, sql: "SELECT * FROM road_quality WHERE trip_id = ? ORDER BY start_time_ns", arguments: [tripID]).map { r in
            func coord(_ a: String, _ b: String) -> Coordinate? {
                guard let la: Double = r[a], let lo: Double = r[b] else { return nil }
                return Coordinate(latitude: la, longitude: lo)
            }
            return RoadQualitySegment(
                startTime: SampleTime(nanoseconds: r["start_time_ns"]), endTime: SampleTime(nanoseconds: r["end_time_ns"]),
                start: coord("start_lat", "start_lon"), end: coord("end_lat", "end_lon"),
                lengthMeters: r["length_m"], roughness: r["roughness"],
                status: PathStatus(rawValue: r["status"]) ?? .medium)
        }
    }
}

extension Store {
    /// The drafts, oldest first; only those in `state` when given.
    /// - Throws: a GRDB `DatabaseError` when the store cannot be read.
    public func listDrafts(state: DraftState? = nil) async throws -> [DraftSummary] {
        try await pool.read { db in try Self.listDrafts(db, state: state) }
    }

    private static func listDrafts(_ db: Database, state: DraftState?) throws -> [DraftSummary] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT d.id, d.trip_id, d.state, d.path_status, t.start_utc_ns, t.distance_m, t.elapsed_s,
                       (SELECT COUNT(*) FROM draft_obstacles o WHERE o.draft_id = d.id AND o.dropped = 0 AND o.held_back = 0) AS obstacles,
                       (SELECT COUNT(*) FROM draft_obstacles o WHERE o.draft_id = d.id AND o.held_back = 1) AS held_back
                FROM drafts d JOIN trips t ON t.id = d.trip_id
                WHERE ?1 IS NULL OR d.state = ?1 ORDER BY d.seq
                """, arguments: [state?.rawValue]
        ).map { r in
            DraftSummary(
                id: r["id"], tripID: r["trip_id"], state: DraftState(rawValue: r["state"]) ?? .pending,
                startUTCNanoseconds: r["start_utc_ns"], distanceMeters: r["distance_m"], elapsedSeconds: r["elapsed_s"] ?? 0,
                obstacles: r["obstacles"], heldBack: r["held_back"],
                pathStatus: (r["path_status"] as String?).flatMap(PathStatus.init(rawValue:)))
        }
    }

    /// The draft's current document.
    /// - Throws: `StoreError.noSuchDraft` when there is no draft `id`, `StoreError.noSuchTrip`
    ///   when its trip is gone.
    public func draft(_ id: String) async throws -> DraftDocument {
        try await pool.read { db in try Drafts.document(db, id) }
    }

    /// The rider confirms: the draft's document is frozen, linked into the hash
    /// chain, and queued in the outbox — all in one transaction.
    @discardableResult
    public func confirmDraft(_ id: String) throws -> DraftDocument {
        try pool.write { db in
            try Drafts.transition(db, id, to: .confirmed)
            let payload = try JSONText.compact(try Drafts.document(db, id))
            try db.execute(sql: "UPDATE drafts SET confirmed_payload = ? WHERE id = ?", arguments: [payload, id])
            try HashChain.append(db, kind: "draft", id: id)
            try Calibration.recordAnswers(db, draftID: id)
            try Outbox.enqueue(db, kind: .confirmation, id: id, payload: payload)
            try Drafts.transition(db, id, to: .queued)
            return try Drafts.document(db, id)
        }
    }

    /// The rider rejects the draft: it is kept on the device and never sent.
    /// - Throws: `StoreError.noSuchDraft` when there is no draft `id`;
    ///   `StoreError.illegalTransition` when it is not pending.
    public func rejectDraft(_ id: String) throws {
        try pool.write { db in try Drafts.transition(db, id, to: .rejected) }
    }

    /// The rider takes a rejection back: the draft is pending again, with its edits.
    /// Nothing of a rejected draft was queued, so nothing has to be recalled; its IMU
    /// windows may already be gone if retention ran meanwhile (docs/storage.md).
    /// - Throws: `StoreError.noSuchDraft` when there is no draft `id`;
    ///   `StoreError.illegalTransition` when it is not rejected.
    public func reopenDraft(_ id: String) throws {
        try pool.write { db in try Drafts.transition(db, id, to: .pending) }
    }

    /// Called by sync once upstream acknowledged the confirmation.
    public func markDraftSynced(_ id: String) throws {
        try pool.write { db in
            try Drafts.transition(db, id, to: .synced)
            try db.execute(sql: "UPDATE outbox SET state = 'sent' WHERE record_kind = 'confirmation' AND record_id = ?", arguments: [id])
        }
    }

    /// Applies one edit to a pending draft and records it in draft_edits.
    /// Returns the id of the obstacle that was changed or added.
    @discardableResult
    public func editDraft(_ id: String, _ edit: DraftEdit) throws -> String? {
        try pool.write { db in
            let state = try Drafts.state(db, id)
            guard state == .pending else { throw StoreError.draftNotEditable(id, state: state) }
            func requireObstacle(_ obstacleID: String) throws {
                guard
                    try Bool.fetchOne(db, sql: "SELECT 1 FROM draft_obstacles WHERE id = ? AND draft_id = ?", arguments: [obstacleID, id])
                        != nil
                else { throw StoreError.noSuchObstacle(obstacleID) }
            }
            let action: String, detail: [String: String], touched: String?
            let current = try Drafts.document(db, id)
            switch edit {
            case .setObstacleKind(let obstacleID, let kind):
                try requireObstacle(obstacleID)
                if current.obstacles.first(where: { $0.id == obstacleID })?.kind == kind {
                    throw StoreError.invalidEdit(
                        "obstacle \(obstacleID) is already \(kind.word.first.map { "aeiou".contains($0) } == true ? "an" : "a") \(kind.word); nothing to change"
                    )
                }
                let previous = current.obstacles.first(where: { $0.id == obstacleID })?.kind ?? .irregularity
                try db.execute(sql: "UPDATE draft_obstacles SET kind = ? WHERE id = ?", arguments: [kind.rawValue, obstacleID])
                // `from` lets `undoLastEdit` put it back.
                (action, detail, touched) = (
                    "set-kind", ["obstacle": obstacleID, "kind": kind.rawValue, "from": previous.rawValue], obstacleID
                )
            case .dropObstacle(let obstacleID):
                try requireObstacle(obstacleID)
                if current.obstacles.first(where: { $0.id == obstacleID })?.dropped == true {
                    throw StoreError.invalidEdit("obstacle \(obstacleID) is already dropped; nothing to change")
                }
                try db.execute(sql: "UPDATE draft_obstacles SET dropped = 1 WHERE id = ?", arguments: [obstacleID])
                (action, detail, touched) = ("drop", ["obstacle": obstacleID], obstacleID)
            case .addObstacle(let kind, let time, let coordinate):
                try Drafts.requireInside(current.trip, time: time)
                var position = coordinate
                if position == nil, let time {
                    position = try nearestTrackPoint(db, draftID: id, time: time)
                }
                guard let position else {
                    throw StoreError.invalidEdit("an added obstacle needs a position, or a time within the trip's track")
                }
                try Drafts.requireNear(current.path, position)
                let obstacleID = DeviceID.make()
                try db.execute(
                    sql: """
                        INSERT INTO draft_obstacles (id, draft_id, kind, time_ns, lat, lon, origin) VALUES (?, ?, ?, ?, ?, ?, 'rider')
                        """, arguments: [obstacleID, id, kind.rawValue, time?.nanoseconds, position.latitude, position.longitude])
                var d = ["obstacle": obstacleID, "kind": kind.rawValue, "lat": "\(position.latitude)", "lon": "\(position.longitude)"]
                if let time { d["time_ns"] = "\(time.nanoseconds)" }
                (action, detail, touched) = ("add", d, obstacleID)
            case .setPathStatus(let status):
                if current.pathStatus == status {
                    throw StoreError.invalidEdit("the path is already rated \(status.word); nothing to change")
                }
                try db.execute(sql: "UPDATE drafts SET path_status = ? WHERE id = ?", arguments: [status.rawValue, id])
                (action, detail, touched) = (
                    "set-path-status", ["status": status.rawValue, "from": current.pathStatus?.rawValue ?? ""], nil
                )
            }
            try db.execute(
                sql: "INSERT INTO draft_edits (draft_id, action, detail) VALUES (?, ?, ?)",
                arguments: [id, action, try JSONText.compact(detail)])
            return touched
        }
    }

    private func nearestTrackPoint(_ db: Database, draftID: String, time: SampleTime) throws -> Coordinate? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT p.lat, p.lon FROM track_points p JOIN drafts d ON d.trip_id = p.trip_id
                    WHERE d.id = ? ORDER BY ABS(p.time_ns - ?) LIMIT 1
                    """, arguments: [draftID, time.nanoseconds])
        else { return nil }
        return Coordinate(latitude: row["lat"], longitude: row["lon"])
    }
}
