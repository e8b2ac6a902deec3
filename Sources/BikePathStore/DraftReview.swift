import BikePathCore
import Foundation
import GRDB

/// What the review page shows of a detected candidate beyond the draft document:
/// the speed it was met at and its stored IMU window.
public struct CandidateEvidence: Sendable, Equatable {
    /// m/s, when the fix had a speed.
    public var speed: Double?
    /// Vertical acceleration (m/s², the obstacle band the peak was measured on), oldest
    /// first; empty when retention dropped the window.
    public var samples: [Float]
    /// Samples per second.
    public var rate: Double
    /// Index in `samples` of the peak (the impact); nil for windows stored before schema v5.
    public var peakIndex: Int?

    public init(speed: Double?, samples: [Float], rate: Double, peakIndex: Int? = nil) {
        self.speed = speed
        self.samples = samples
        self.rate = rate
        self.peakIndex = peakIndex
    }
}

extension Store {
    /// The speed and stored window of an event, or nil when there is no such event; read on a
    /// reader, off the caller's thread (the review page).
    public func candidateEvidence(_ eventID: String) async throws -> CandidateEvidence? {
        try await pool.read { db in try Self.candidateEvidence(db, eventID) }
    }

    private static func candidateEvidence(_ db: Database, _ eventID: String) throws -> CandidateEvidence? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT e.speed, e.window_rate, w.samples, w.peak_index FROM events e LEFT JOIN event_windows w ON w.event_id = e.id
                    WHERE e.id = ?
                    """, arguments: [eventID])
        else { return nil }
        let blob: Data = row["samples"] ?? Data()
        let samples = stride(from: 0, to: blob.count - 3, by: 4).map { i in
            Float(
                bitPattern: UInt32(blob[blob.startIndex + i]) | UInt32(blob[blob.startIndex + i + 1]) << 8
                    | UInt32(blob[blob.startIndex + i + 2]) << 16 | UInt32(blob[blob.startIndex + i + 3]) << 24)
        }
        let peakIndex: Int? = row["peak_index"]
        return CandidateEvidence(
            speed: row["speed"], samples: samples, rate: row["window_rate"] ?? 0,
            peakIndex: peakIndex.flatMap { samples.indices.contains($0) ? $0 : nil })
    }

    /// Takes back the last edit of a pending draft (the rider's undo). Every edit
    /// keeps what it replaced (`from`), so undoing restores exactly the state before it.
    /// Returns the edit that was undone.
    @discardableResult
    public func undoLastEdit(_ id: String) throws -> DraftDocument.Edit {
        try pool.write { db in
            let state = try Drafts.state(db, id)
            guard state == .pending else { throw StoreError.draftNotEditable(id, state: state) }
            guard
                let last = try Row.fetchOne(
                    db, sql: "SELECT seq, action, detail FROM draft_edits WHERE draft_id = ? ORDER BY seq DESC LIMIT 1",
                    arguments: [id])
            else {
                throw StoreError.invalidEdit("draft \(id) has no edit to undo")
            }
            let action: String = last["action"]
            let detailText: String = last["detail"]
            // An unreadable detail leaves every key missing: `need` then refuses the undo
            // with a clear error and nothing changes.
            let detail = (try? JSONDecoder().decode([String: String].self, from: Data(detailText.utf8))) ?? [:]
            func need(_ key: String) throws -> String {
                guard let value = detail[key] else {
                    throw StoreError.invalidEdit("the last edit (\(action)) was made before undo existed and cannot be taken back")
                }
                return value
            }
            switch action {
            case "set-kind":
                try db.execute(
                    sql: "UPDATE draft_obstacles SET kind = ? WHERE id = ? AND draft_id = ?",
                    arguments: [try need("from"), try need("obstacle"), id])
            case "drop":
                try db.execute(
                    sql: "UPDATE draft_obstacles SET dropped = 0 WHERE id = ? AND draft_id = ?", arguments: [try need("obstacle"), id])
            case "add":
                try db.execute(
                    sql: "DELETE FROM draft_obstacles WHERE id = ? AND draft_id = ? AND origin = 'rider'",
                    arguments: [try need("obstacle"), id])
            case "set-path-status":
                let from = try need("from")
                try db.execute(sql: "UPDATE drafts SET path_status = ? WHERE id = ?", arguments: [from.isEmpty ? nil : from, id])
            default:
                throw StoreError.invalidEdit("the last edit (\(action)) cannot be taken back")
            }
            try db.execute(sql: "DELETE FROM draft_edits WHERE seq = ?", arguments: [last["seq"] as Int64])
            return DraftDocument.Edit(action: action, detail: detailText)
        }
    }

    /// The draft a rider means: its full id, a unique prefix of it, or its number
    /// in `drafts list` (1 = oldest; a plain number of at most 4 digits).
    public func resolveDraftID(_ reference: String) async throws -> String {
        try Self.resolveDraftID(reference, among: try await pool.read(Self.draftIDs))
    }

    private static func draftIDs(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT id FROM drafts ORDER BY seq")
    }

    private static func resolveDraftID(_ reference: String, among ids: [String]) throws -> String {
        let ref = reference.trimmingCharacters(in: .whitespaces)
        // Digits name a number in `drafts list` when there is one; otherwise they are the start of
        // an id (`export 3138`, ids being hex), and only when neither names a draft is it refused.
        if ref.count <= 4, let index = Int(ref) {
            if ids.indices.contains(index - 1) { return ids[index - 1] }
            do {
                return try unique(ref, among: ids, original: reference) { StoreError.noSuchDraft($0) }
            } catch StoreError.noSuchDraft {
                throw StoreError.noSuchDraftNumber(index, count: ids.count)
            }
        }
        return try unique(ref, among: ids, original: reference) { StoreError.noSuchDraft($0) }
    }

    /// A trip as `export` takes it: its own id (`trip_id` of `drafts list --json`) or a
    /// unique prefix of it, or its draft named as every `drafts` command names one (the
    /// draft's id, a unique prefix, its number in `drafts list`), by `resolveDraftID`.
    /// `export` takes the same references, since its help points to `drafts list`.
    public func resolveTripID(_ reference: String) throws -> String {
        let ref = reference.trimmingCharacters(in: .whitespaces)
        let trips = try pool.read { db in try String.fetchAll(db, sql: "SELECT id FROM trips ORDER BY seq") }
        if let exact = trips.first(where: { $0.uppercased() == ref.uppercased() }) { return exact }
        do {
            let draftID = try Self.resolveDraftID(reference, among: try pool.read(Self.draftIDs))
            let trip = try pool.read { db in try String.fetchOne(db, sql: "SELECT trip_id FROM drafts WHERE id = ?", arguments: [draftID])
            }
            guard let trip else { throw StoreError.noSuchTrip(reference) }
            return trip
        } catch StoreError.noSuchDraft {
            return try Self.unique(ref, among: trips, original: reference) { StoreError.noSuchTrip($0) }
        } catch StoreError.noSuchDraftNumber(let n, let count) {
            // Digits that are no draft's number nor the start of a draft's id may start a trip's id.
            return try Self.unique(ref, among: trips, original: reference) { _ in StoreError.noSuchDraftNumber(n, count: count) }
        }
    }

    /// An obstacle of a draft: its full id, a unique prefix, or its number in `drafts show` (`#3`).
    public func resolveObstacleID(_ reference: String, inDraft draftID: String) async throws -> String {
        try Self.resolveObstacleID(reference, among: try await draft(draftID).obstacles)
    }

    /// An obstacle of a draft already read (`drafts edit` resolves every reference in the one document it edits).
    public static func resolveObstacleID(_ reference: String, among obstacles: [DraftDocument.Obstacle]) throws -> String {
        let ref = reference.trimmingCharacters(in: .whitespaces)
        if ref.hasPrefix("#"), let rank = Int(ref.dropFirst()) {
            guard let o = obstacles.first(where: { $0.reviewRank == rank }) else { throw StoreError.noSuchObstacle(reference) }
            return o.id
        }
        return try Self.unique(ref, among: obstacles.map(\.id), original: reference) { StoreError.noSuchObstacle($0) }
    }

    static func unique(_ ref: String, among ids: [String], original: String, missing: (String) -> StoreError) throws -> String {
        // Ids are upper-case UUIDs; a rider may type them in either case.
        let wanted = ref.uppercased()
        if let exact = ids.first(where: { $0.uppercased() == wanted }) { return exact }
        let matches = ids.filter { $0.uppercased().hasPrefix(wanted) }
        guard !ref.isEmpty, let first = matches.first else { throw missing(original) }
        guard matches.count == 1 else { throw StoreError.ambiguousReference(original, matches: matches.count) }
        return first
    }
}

extension DraftDocument {
    /// Metres along the trip's path to its vertex nearest `position`: where on the
    /// ride a candidate lies, as the rider remembers it ("2.4 km in").
    public func distanceAlongPath(to position: Coordinate) -> Double? {
        guard !path.isEmpty else { return nil }
        var travelled = 0.0, best = (distance: Double.infinity, along: 0.0)
        for (i, point) in path.enumerated() {
            if i > 0 { travelled += Geodesic.distance(path[i - 1], point) }
            let d = Geodesic.distance(point, position)
            if d < best.distance { best = (d, travelled) }
        }
        return best.along
    }

    /// The clock time (UTC, ns since 1970) of a sample time of this trip, or nil
    /// when the trip never had a GNSS time.
    public func utcNanoseconds(atSampleTime nanoseconds: Int64) -> Int64? {
        trip.startUTCNanoseconds.map { $0 + (nanoseconds - trip.startTimeNanoseconds) }
    }

    /// The sample time of a clock time (UTC, ns since 1970) during this trip: the
    /// inverse of `utcNanoseconds(atSampleTime:)`; nil without a GNSS time.
    public func sampleNanoseconds(atUTC utcNanoseconds: Int64) -> Int64? {
        trip.startUTCNanoseconds.map { trip.startTimeNanoseconds + (utcNanoseconds - $0) }
    }
}

extension DraftDocument {
    /// The obstacles the rider is asked about and numbers (the page's "candidate 3", the CLI's `#3`
    /// for a ranked one): everything but the held back, in the store's review order.
    public var shownObstacles: [Obstacle] { obstacles.filter { !$0.heldBack } }

    /// One edit in the rider's words, candidates by their number among `shownObstacles`, kinds and
    /// statuses by their words ("Rated the path needs maintenance (was not rated)."), not the stored
    /// JSON with its UUIDs: the review page's edit list and `drafts show`/`edit` print this.
    public func sentence(for edit: Edit) -> String {
        let detail = (try? JSONDecoder().decode([String: String].self, from: Data(edit.detail.utf8))) ?? [:]
        let shown = shownObstacles
        let candidate = detail["obstacle"].flatMap { id in shown.firstIndex { $0.id == id } }.map { "candidate \($0 + 1)" } ?? "a candidate"
        func kind(_ key: String) -> String? { detail[key].flatMap(ObstacleKind.init(rawValue:))?.word }
        func status(_ key: String) -> String? { detail[key].flatMap(PathStatus.init(rawValue:))?.word }
        switch edit.action {
        case "drop": return "Dropped \(candidate)."
        case "set-kind": return "Changed \(candidate) from \(kind("from") ?? "?") to \(kind("kind") ?? "?")."
        case "add": return "Added \(kind("kind") ?? "an obstacle") (\(candidate))."
        case "set-path-status": return "Rated the path \(status("status") ?? "?") (was \(status("from") ?? "not rated"))."
        default: return "\(edit.action)."
        }
    }
}
