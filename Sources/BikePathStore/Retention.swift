import Foundation
import GRDB

/// What one retention pass removed.
public struct RetentionReport: Sendable, Equatable, Codable {
    public var usedBytesBefore: Int64
    public var usedBytesAfter: Int64
    public var windowsDropped = 0
    public var trackPointsDeleted = 0
    public var eventsPruned = 0
    public var logRowsDeleted = 0
    public var overBudget: Bool
}

/// Store-wide numbers for `bikepathd diagnose`.
public struct StoreDiagnostics: Sendable, Equatable, Codable {
    public var usedBytes: Int64
    public var budgetBytes: Int64
    public var pendingDrafts: Int
    /// The outbox by `PublishingState` (`SyncDiagnosis.count`), as `sync status`, `status` and
    /// the review page count it: a record that consent holds back is withheld, not pending.
    public var outboxPending: Int
    public var outboxWithheld: Int
    public var outboxQuarantined: Int
    public var openTrip: String?
    /// Disk-full history recorded by writers (commits that failed, points dropped).
    public var diskFullFailedCommits: Int
    public var diskFullDroppedPoints: Int
    /// Outputs a writer could not commit before it stopped (the disk stayed full),
    /// with the SOS and obstacles among them.
    public var diskFullLostOutputs: Int
    public var diskFullLostSOS: Int
    public var diskFullLostEvents: Int
    /// Where the daemon moved an unusable store when it started a fresh one (the old file is kept there).
    public var movedAsideTo: String?
    public var movedAsideReason: String?
    /// SOS records that are queued but may not leave the device (SOS consent off).
    public var withheldSOS: Int
    /// Retention passes that failed (`enforceBudget` threw), and the last reason.
    public var retentionFailures: Int
    public var lastRetentionError: String?
}

/// "12.3 MB", for messages.
public func megabytes(_ bytes: Int64) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }

extension Store {
    /// Bytes the database really uses: pages in use (free pages are reused) plus the WAL.
    public func usedBytes() throws -> Int64 {
        let pages = try pool.read { db in
            let size = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
            let count = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let free = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
            return (count - free) * size
        }
        var info = stat()
        let wal = stat(path + "-wal", &info) == 0 ? Int64(info.st_size) : 0
        return pages + wal
    }

    /// Brings the store under its disk budget, deleting the least needed data
    /// first and stopping as soon as it fits:
    /// 1. IMU windows of events whose draft was synced or rejected (oldest first);
    /// 2. track points of those trips (the simplified path stays on the trip);
    /// 3. those obstacle events themselves (their chain links are marked pruned);
    /// 4. sent outbox rows and the oldest sync-log rows.
    /// Never touched: anything of a pending, confirmed or queued draft, an open
    /// trip, and SOS events.
    @discardableResult
    public func enforceBudget() throws -> RetentionReport {
        let budget = Int64(configuration.budgetMegabytes * 1_048_576)
        let before = try usedBytes()
        var report = RetentionReport(usedBytesBefore: before, usedBytesAfter: before, overBudget: before > budget)
        guard before > budget else { return report }
        let done = "SELECT trip_id FROM drafts WHERE state IN ('synced', 'rejected')"
        let steps: [(String, WritableKeyPath<RetentionReport, Int>)] = [
            (
                """
                DELETE FROM event_windows WHERE rowid IN (SELECT w.rowid FROM event_windows w JOIN events e ON e.id = w.event_id
                    WHERE e.kind = 'obstacle' AND e.trip_id IN (\(done)) ORDER BY w.rowid LIMIT 500)
                """, \.windowsDropped
            ),
            (
                "DELETE FROM track_points WHERE trip_id = (SELECT t.id FROM trips t WHERE t.id IN (\(done)) AND EXISTS (SELECT 1 FROM track_points p WHERE p.trip_id = t.id) ORDER BY t.seq LIMIT 1)",
                \.trackPointsDeleted
            ),
            (
                """
                UPDATE hash_chain SET pruned = 1 WHERE record_kind = 'event' AND record_id IN
                    (SELECT id FROM events WHERE kind = 'obstacle' AND trip_id IN (\(done)) ORDER BY time_ns LIMIT 500);
                DELETE FROM draft_obstacles WHERE event_id IN (SELECT id FROM events WHERE kind = 'obstacle' AND trip_id IN (\(done)) ORDER BY time_ns LIMIT 500);
                DELETE FROM events WHERE id IN (SELECT id FROM events WHERE kind = 'obstacle' AND trip_id IN (\(done)) ORDER BY time_ns LIMIT 500)
                """, \.eventsPruned
            ),
            (
                HashChain.pruneOutboxSQL(where: "state = 'sent'")
                    + "; DELETE FROM outbox WHERE state = 'sent'; DELETE FROM sync_log WHERE seq IN (SELECT seq FROM sync_log ORDER BY seq LIMIT 1000)",
                \.logRowsDeleted
            ),
        ]
        for (sql, counter) in steps {
            while try usedBytes() > budget {
                let changed = try pool.write { db -> Int in
                    try db.execute(sql: sql)
                    return db.changesCount
                }
                if changed == 0 { break }
                report[keyPath: counter] += changed
                try checkpoint()
            }
        }
        report.usedBytesAfter = try usedBytes()
        report.overBudget = report.usedBytesAfter > budget
        return report
    }

    /// Runs `enforceBudget`; a failure is not thrown at the writer (recording
    /// goes on) but counted in the store with its reason, for `status` and `diagnose`.
    @discardableResult
    public func enforceBudgetRecordingFailure() -> RetentionReport? {
        do {
            return try enforceBudget()
        } catch {
            // Counting the failure can fail for the same reason (disk full): recording goes on regardless.
            try? pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO meta (key, value) VALUES ('retention_failures', '1')
                        ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1
                        """)
                try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('retention_last_error', ?)", arguments: ["\(error)"])
            }
            return nil
        }
    }

    /// The store-wide figures `bikepathd diagnose` shows.
    /// - Throws: a GRDB `DatabaseError` when the store cannot be read.
    public func diagnostics() throws -> StoreDiagnostics {
        let used = try usedBytes()
        // The one rule (`PublishingState`): this counted every unsent record as pending, the
        // withheld ones too, and `diagnose --json` said `outbox_pending: 1` where `sync status` said 0.
        let outbox = try syncDiagnosis(logLines: 0)
        return try pool.read { db in
            func metaText(_ key: String) throws -> String? {
                try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key])
            }
            func meta(_ key: String) throws -> Int { try metaText(key).flatMap { Int($0) } ?? 0 }
            return StoreDiagnostics(
                usedBytes: used, budgetBytes: Int64(configuration.budgetMegabytes * 1_048_576),
                pendingDrafts: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM drafts WHERE state = 'pending'") ?? 0,
                outboxPending: outbox.count(.pending), outboxWithheld: outbox.count(.withheld),
                outboxQuarantined: outbox.count(.quarantined),
                openTrip: try Ingest.loadOpenTrip(db),
                diskFullFailedCommits: try meta("disk_full_failed_commits"),
                diskFullDroppedPoints: try meta("disk_full_dropped_points"),
                diskFullLostOutputs: try meta("disk_full_lost_outputs"),
                diskFullLostSOS: try meta("disk_full_lost_sos"),
                diskFullLostEvents: try meta("disk_full_lost_events"),
                movedAsideTo: try metaText("moved_aside_to"), movedAsideReason: try metaText("moved_aside_reason"),
                withheldSOS: outbox.withheld[OutboxKind.sos.rawValue] ?? 0,
                retentionFailures: try meta("retention_failures"), lastRetentionError: try metaText("retention_last_error"))
        }
    }
}
