import BikePathCore
import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import GRDB
import Testing
@testable import BikePathStore

@Suite(.ownThreads) struct DraftTests {
    @Test func onlyTheDocumentedTransitionsAreAllowed() {
        let allowed: Set<String> = ["pending>confirmed", "pending>rejected", "rejected>pending", "confirmed>queued", "queued>synced"]
        for from in DraftState.allCases {
            for to in DraftState.allCases {
                #expect(from.canBecome(to) == allowed.contains("\(from.rawValue)>\(to.rawValue)"), "\(from) -> \(to)")
            }
        }
    }

    /// A reject can be taken back: a rejected draft never left the device, so it can be
    /// reopened with its edits; a queued one cannot.
    @Test func aRejectionCanBeTakenBackButAConfirmationCannot() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithDrafts(dir)
        let ids = try await store.listDrafts().map(\.id)
        let first = try await store.draft(ids[1]).obstacles[0].id
        try store.editDraft(ids[1], .dropObstacle(obstacleID: first))
        try store.rejectDraft(ids[1])
        try store.reopenDraft(ids[1])
        let reopened = try await store.draft(ids[1])
        #expect(reopened.state == .pending)
        #expect(reopened.edits.map(\.action) == ["drop"] && reopened.obstacles[0].dropped)
        #expect(throws: StoreError.illegalTransition(draft: ids[1], from: .pending, to: .pending)) { try store.reopenDraft(ids[1]) }
        try store.confirmDraft(ids[0])
        #expect(throws: StoreError.illegalTransition(draft: ids[0], from: .queued, to: .pending)) { try store.reopenDraft(ids[0]) }
        #expect(try store.count("SELECT COUNT(*) FROM outbox WHERE record_kind = 'confirmation' AND record_id = '\(ids[1])'") == 0)
    }

    private func storeWithDrafts(_ dir: TempDir, trips: Int = 2) throws -> Store {
        let store = try Store.open(path: dir.file("s.db"))
        _ = try replay(store, trips: trips, seconds: 300)
        return store
    }

    @Test func closedTripBecomesAPendingDraftWithItsCandidates() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithDrafts(dir)
        let drafts = try await store.listDrafts()
        #expect(drafts.count == 2)
        #expect(drafts.allSatisfy { $0.state == .pending })
        let d = try await store.draft(drafts[0].id)
        let events = try store.count("SELECT COUNT(*) FROM events WHERE kind = 'obstacle' AND trip_id = '\(d.trip.id)'")
        #expect(d.obstacles.count == events && events > 0)
        #expect(d.obstacles.allSatisfy { $0.origin == "detected" && $0.eventID != nil })
        #expect(d.roadQuality.count == 4)
        #expect(d.path.count == 30)  // the chain's simplified path, 1 in 10 fixes
        #expect(d.trip.statistics.distanceMeters > 1500)
        // Nothing is in the outbox for an unconfirmed draft.
        #expect(try store.count("SELECT COUNT(*) FROM outbox WHERE record_kind = 'confirmation'") == 0)
    }

    @Test func confirmQueuesOnceAndRefusesIllegalTransitions() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithDrafts(dir)
        let ids = try await store.listDrafts().map(\.id)
        let confirmed = try store.confirmDraft(ids[0])
        #expect(confirmed.state == .queued)
        let outbox = try await store.outboxPending()
        #expect(outbox.map(\.kind) == [.sos, .confirmation])  // SOS first
        #expect(outbox[1].recordID == ids[0])
        let payload = try JSONDecoder().decode(DraftDocument.self, from: Data(outbox[1].payload.utf8))
        #expect(payload.id == ids[0] && payload.state == .confirmed)
        #expect(throws: StoreError.illegalTransition(draft: ids[0], from: .queued, to: .confirmed)) { try store.confirmDraft(ids[0]) }
        #expect(throws: StoreError.illegalTransition(draft: ids[0], from: .queued, to: .rejected)) { try store.rejectDraft(ids[0]) }
        try store.rejectDraft(ids[1])
        #expect(throws: StoreError.illegalTransition(draft: ids[1], from: .rejected, to: .confirmed)) { try store.confirmDraft(ids[1]) }
        #expect(throws: StoreError.illegalTransition(draft: ids[1], from: .rejected, to: .synced)) { try store.markDraftSynced(ids[1]) }
        try store.markDraftSynced(ids[0])
        #expect(try await store.draft(ids[0]).state == .synced)
        #expect(try await store.outboxPending().map(\.kind) == [.sos])
        #expect(throws: StoreError.noSuchDraft("nope")) { try store.confirmDraft("nope") }
        // A failed transition leaves no trace: still exactly one confirmation queued.
        #expect(try store.count("SELECT COUNT(*) FROM outbox WHERE record_kind = 'confirmation'") == 1)
    }

    @Test func editsChangeDropAndAddObstaclesAndRatePath() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithDrafts(dir, trips: 1)
        let id = try #require(try await store.listDrafts().first?.id)
        let before = try await store.draft(id)
        let first = before.obstacles[0], second = before.obstacles[1]
        let newKind: ObstacleKind = first.kind == .debris ? .pothole : .debris
        try store.editDraft(id, .setObstacleKind(obstacleID: first.id, newKind))
        try store.editDraft(id, .dropObstacle(obstacleID: second.id))
        let startSeconds = Double(before.trip.startTimeNanoseconds) / 1e9
        let addedAtTime = try #require(
            try store.editDraft(id, .addObstacle(.bump, time: SampleTime(seconds: startSeconds + 100.2), coordinate: nil)))
        let spot = Coordinate(latitude: 52.5201, longitude: 13.401)
        let addedAtSpot = try #require(try store.editDraft(id, .addObstacle(.irregularity, time: nil, coordinate: spot)))
        try store.editDraft(id, .setPathStatus(.requiresMaintenance))

        let after = try await store.draft(id)
        #expect(after.obstacles.first { $0.id == first.id }?.kind == newKind)
        #expect(after.obstacles.first { $0.id == second.id }?.dropped == true)
        let byTime = try #require(after.obstacles.first { $0.id == addedAtTime })
        let trackPoint = try store.pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT lat, lon FROM track_points WHERE time_ns = ?",
                arguments: [SampleTime(seconds: startSeconds + 100).nanoseconds])
        }
        #expect(byTime.coordinate == Coordinate(latitude: trackPoint?["lat"] ?? 0, longitude: trackPoint?["lon"] ?? 0))
        #expect(byTime.origin == "rider" && byTime.kind == .bump)
        #expect(after.obstacles.first { $0.id == addedAtSpot }?.coordinate == spot)
        #expect(after.pathStatus == .requiresMaintenance)
        #expect(after.edits.map(\.action) == ["set-kind", "drop", "add", "add", "set-path-status"])
        // The stored event itself is untouched (it is hash-chained); only the draft changed.
        #expect(try store.verify().ok)

        #expect(throws: StoreError.noSuchObstacle("missing")) { try store.editDraft(id, .dropObstacle(obstacleID: "missing")) }
        #expect(throws: StoreError.self) { try store.editDraft(id, .addObstacle(.bump, time: nil, coordinate: nil)) }
        try store.confirmDraft(id)
        #expect(throws: StoreError.draftNotEditable(id, state: .queued)) { try store.editDraft(id, .setPathStatus(.optimal)) }
        // The confirmed payload carries the edits and leaves the dropped obstacle marked.
        let payload = try #require(try await store.outboxPending().first { $0.kind == .confirmation }?.payload)
        let sent = try JSONDecoder().decode(DraftDocument.self, from: Data(payload.utf8))
        #expect(sent.pathStatus == .requiresMaintenance && sent.obstacles.count == after.obstacles.count)
    }

    /// An obstacle 5,500 km from the route, at +99999 s or −5 s, and a second drop of a
    /// dropped obstacle are refused, and none leaves a new revision.
    @Test func editsThatMakeNoSenseAreRefusedAndLeaveNoRevision() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithDrafts(dir, trips: 1)
        let id = try #require(try await store.listDrafts().first?.id)
        let doc = try await store.draft(id)
        let start = SampleTime(nanoseconds: doc.trip.startTimeNanoseconds)
        let obstacle = try #require(doc.obstacles.first)
        try store.editDraft(id, .dropObstacle(obstacleID: obstacle.id))
        let editsBefore = try await store.draft(id).edits.count

        func refused(_ edit: DraftEdit, _ phrase: String) {
            do {
                try store.editDraft(id, edit)
                Issue.record("accepted: \(edit)")
            } catch let StoreError.invalidEdit(reason) {
                #expect(reason.contains(phrase), "\(reason)")
            } catch {
                Issue.record("\(error)")
            }
        }
        refused(.addObstacle(.pothole, time: nil, coordinate: Coordinate(latitude: 40.7128, longitude: -74.006)), "from the trip's path")
        refused(.addObstacle(.pothole, time: start + 99_999, coordinate: nil), "outside the trip")
        refused(.addObstacle(.pothole, time: start + (-5), coordinate: nil), "outside the trip")
        refused(.dropObstacle(obstacleID: obstacle.id), "already dropped")
        refused(
            .setObstacleKind(obstacleID: obstacle.id, obstacle.kind),
            "is already a\(obstacle.kind == .irregularity ? "n" : "") \(obstacle.kind.word); nothing to change")
        #expect(try await store.draft(id).edits.count == editsBefore, "a refused edit leaves no revision")

        // On the path and inside the trip is accepted.
        let onPath = try #require(doc.path.dropFirst(3).first)
        #expect(try store.editDraft(id, .addObstacle(.bump, time: nil, coordinate: onPath)) != nil)
    }
}

/// The store is the rider's: made under the unit's UMask=0077, the
/// database and its -wal/-shm are still group read-write, so a member of group
/// bikepath runs `drafts` and the review page without sudo (that half, through
/// `bikepathd`, is in BikePathCLITests). Others get nothing.
@Suite(.ownThreads) struct StoreGroupAccessTests {
    @Test func storeFilesAreGroupReadWriteUnderUmask077() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = dir.file("s.db")
        let bench = try #require(benchExecutablePath(), "BikePathBench must be built next to the tests")
        let made = try runProcess(
            "/bin/sh", ["-c", "umask 077 && exec \"$0\" store-replay --db \"$1\" --trips 1 --seconds-per-trip 60", bench, db])
        #expect(made.status == 0, "\(made.err)")
        for file in [db, db + "-wal", db + "-shm"] {
            var info = stat()
            #expect(stat(file, &info) == 0, "\(file) missing")
            #expect(info.st_mode & 0o777 == 0o660, "\(file): \(String(info.st_mode & 0o777, radix: 8))")
        }
    }
}

/// Undo and rider-friendly references.
@Suite(.ownThreads) struct DraftReferenceTests {
    @Test func undoTakesBackEachKindOfEditExactly() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        _ = try replay(store, trips: 1, seconds: 300)
        let id = try #require(try await store.listDrafts().first?.id)
        let original = try await store.draft(id)
        let o = original.obstacles[0]
        try store.editDraft(id, .setObstacleKind(obstacleID: o.id, o.kind == .debris ? .bump : .debris))
        try store.editDraft(id, .dropObstacle(obstacleID: original.obstacles[1].id))
        try store.editDraft(id, .addObstacle(.pothole, time: nil, coordinate: original.path[3]))
        try store.editDraft(id, .setPathStatus(.optimal))
        try store.editDraft(id, .setPathStatus(.medium))
        #expect(try store.undoLastEdit(id).action == "set-path-status")
        #expect(try await store.draft(id).pathStatus == .optimal)
        for _ in 0..<4 { try store.undoLastEdit(id) }
        #expect(try await store.draft(id) == original)
        #expect(throws: StoreError.invalidEdit("draft \(id) has no edit to undo")) { try store.undoLastEdit(id) }
        try store.confirmDraft(id)
        #expect(throws: StoreError.draftNotEditable(id, state: .queued)) { try store.undoLastEdit(id) }
    }

    @Test func draftsAreNamedByIdPrefixOrNumber() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        _ = try replay(store, trips: 2, seconds: 300)
        let ids = try await store.listDrafts().map(\.id)
        #expect(try await store.resolveDraftID(ids[1]) == ids[1])
        #expect(try await store.resolveDraftID(String(ids[1].prefix(6)).lowercased()) == ids[1])
        #expect(try await store.resolveDraftID("1") == ids[0])
        #expect(try await store.resolveDraftID("2") == ids[1])
        // Past the list, digits are an id prefix: four of them, so that no id starts with them.
        await #expect(throws: StoreError.noSuchDraftNumber(3333, count: 2)) { try await store.resolveDraftID("3333") }
        await #expect(throws: StoreError.noSuchDraft("zz")) { try await store.resolveDraftID("zz") }
        await #expect(throws: StoreError.noSuchDraft("")) { try await store.resolveDraftID("") }
        let d = try await store.draft(ids[0])
        let asked = try #require(d.obstacles.first { $0.reviewRank == 1 })
        #expect(try await store.resolveObstacleID("#1", inDraft: ids[0]) == asked.id)
        #expect(try await store.resolveObstacleID(String(asked.id.prefix(8)), inDraft: ids[0]) == asked.id)
        await #expect(throws: StoreError.noSuchObstacle("#99")) { try await store.resolveObstacleID("#99", inDraft: ids[0]) }
        #expect(throws: StoreError.ambiguousReference("ab", matches: 2)) {
            try Store.unique("ab", among: ["ABC1", "ABD2", "B"], original: "ab") { StoreError.noSuchDraft($0) }
        }
    }

    @Test func aCandidateLiesAlongThePathAndAtAClockTime() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        _ = try replay(store, trips: 1, seconds: 300)
        let d = try await store.draft(try #require(try await store.listDrafts().first?.id))
        #expect(d.distanceAlongPath(to: d.path[0]) == 0)
        let last = try #require(d.distanceAlongPath(to: d.path[d.path.count - 1]))
        #expect(abs(last - Geodesic.distance(d.path[0], d.path[d.path.count - 1])) < 1)  // a straight ride east
        let start = try #require(d.trip.startUTCNanoseconds)
        #expect(d.utcNanoseconds(atSampleTime: d.trip.startTimeNanoseconds + 5_000_000_000) == start + 5_000_000_000)
    }
}
