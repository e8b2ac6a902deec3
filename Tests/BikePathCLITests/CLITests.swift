import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import Testing
@testable import BikePathStore

/// The `bikepathd drafts|export|stats` commands, run as a rider would.
@Suite(.ownThreads) struct CLITests {
    private func prepared() throws -> (binary: String, dir: TempDir, db: String) { try storeWithTwoRides() }

    private func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    @Test func listShowEditConfirmRejectWithJSON() throws {
        let (bin, dir, db) = try prepared()
        defer { dir.cleanup() }
        let list = try runProcess(bin, ["drafts", "list", "--db", db, "--json"])
        #expect(list.status == 0)
        let listed = try #require(try json(list.out) as? [String: Any])
        #expect(listed["schema"] as? Int == 1)
        let drafts = try #require(listed["drafts"] as? [[String: Any]])
        #expect(drafts.count == 2)
        let id = try #require(drafts[0]["id"] as? String)

        let show = try runProcess(bin, ["drafts", "show", id, "--db", db, "--json"])
        let doc = try #require(try json(show.out) as? [String: Any])
        let obstacles = try #require(doc["obstacles"] as? [[String: Any]])
        let first = try #require(obstacles.first?["id"] as? String)

        let edit = try runProcess(
            bin,
            [
                "drafts", "edit", id, "--db", db, "--json", "--set-kind", "\(first)=debris",
                "--add", "pothole@52.52,13.41", "--add", "bump@100", "--path-status", "medium",
            ])
        #expect(edit.status == 0, "\(edit.err)")
        let edited = try #require(try json(edit.out) as? [String: Any])
        #expect(edited["path_status"] as? String == "medium")
        let editedObstacles = try #require(edited["obstacles"] as? [[String: Any]])
        #expect(editedObstacles.count == obstacles.count + 2)
        // "bump@100" is 100 s after the trip's start.
        #expect(
            editedObstacles.contains {
                $0["kind"] as? String == "bump" && $0["origin"] as? String == "rider"
                    && abs(($0["offset_s"] as? Double ?? 0) - 100) < 1e-6
            })

        let confirm = try runProcess(bin, ["drafts", "confirm", id, "--db", db, "--json"])
        #expect(confirm.status == 0)
        #expect((try json(confirm.out) as? [String: Any])?["state"] as? String == "queued")

        // Wrong state: a queued draft cannot be confirmed again or edited.
        let again = try runProcess(bin, ["drafts", "confirm", id, "--db", db])
        #expect(again.status == 1)
        #expect(again.err.contains("is confirmed already; nothing to change"))
        let late = try runProcess(bin, ["drafts", "edit", id, "--db", db, "--json", "--drop", first])
        #expect(late.status == 1)
        #expect((try json(late.out) as? [String: String])?["error"]?.contains("only drafts to review can be edited") == true)

        // Wrong id, for every subcommand that takes one.
        for sub in ["show", "confirm", "reject"] {
            let r = try runProcess(bin, ["drafts", sub, "no-such-id", "--db", db])
            #expect(r.status == 1, "\(sub)")
            #expect(r.err.contains("no draft with id no-such-id"), "\(sub): \(r.err)")
        }
        let badObstacle = try runProcess(bin, ["drafts", "edit", drafts[1]["id"] as! String, "--db", db, "--drop", "nope"])
        #expect(badObstacle.err.contains("no obstacle with id nope"))
        let badKind = try runProcess(bin, ["drafts", "edit", id, "--db", db, "--set-kind", "x=crater"])
        #expect(badKind.status != 0 && badKind.err.contains("--set-kind wants OBSTACLE=KIND"))

        let reject = try runProcess(bin, ["drafts", "reject", drafts[1]["id"] as! String, "--db", db])
        #expect(reject.status == 0 && reject.out.contains("rejected"))
        let pending = try runProcess(bin, ["drafts", "list", "--db", db, "--state", "pending"])
        #expect(pending.out.trimmingCharacters(in: .whitespacesAndNewlines) == "no drafts")
    }

    @Test func exportAndStatsCommands() async throws {
        let (bin, dir, db) = try prepared()
        defer { dir.cleanup() }
        let store = try Store.open(path: db)
        let trip = try #require(try store.tripIDs().first)
        let gpx = try await runProcess(bin, ["export", "--format", "gpx", trip, "--db", db])
        #expect(gpx.status == 0 && gpx.out.hasPrefix("<?xml") && gpx.out.contains("<wpt "))
        let geo = try await runProcess(bin, ["export", "--format", "geojson", trip, "--db", db])
        #expect((try json(geo.out) as? [String: Any])?["type"] as? String == "FeatureCollection")
        let missing = try await runProcess(bin, ["export", "--format", "gpx", "nope", "--db", db])
        #expect(missing.status == 1 && missing.err.contains("no trip with id nope"))
        let stats = try await runProcess(bin, ["stats", "--db", db, "--json"])
        let totals = try #require(try json(stats.out) as? [String: Any])
        #expect(totals["trips"] as? Int == 2)
        let distance = try await store.statistics().distanceMeters
        #expect(abs((totals["distance_m"] as? Double ?? 0) - distance) < 1e-6)
    }

    /// `export` takes what `drafts` takes (its help points to `drafts list`, which shows
    /// draft numbers and ids): a number of the list or an id prefix, not only a full trip id.
    @Test func exportTakesWhatDraftsTakes() throws {
        let (bin, dir, db) = try prepared()
        defer { dir.cleanup() }
        let drafts = try #require(
            (try json(try runProcess(bin, ["drafts", "list", "--db", db, "--json"]).out) as? [String: Any])?["drafts"]
                as? [[String: Any]])
        let second = drafts[1]
        let trip = try #require(second["trip_id"] as? String), draft = try #require(second["id"] as? String)
        let byTrip = try runProcess(bin, ["export", "--format", "geojson", trip, "--db", db])
        #expect(byTrip.status == 0, "\(byTrip.err)")
        for reference in ["2", draft, String(draft.prefix(8)), String(draft.prefix(8)).lowercased(), String(trip.prefix(8))] {
            let r = try runProcess(bin, ["export", "--format", "geojson", reference, "--db", db])
            #expect(r.status == 0 && r.out == byTrip.out, "export \(reference): \(r.err)")
        }
        // Four digits: past the list and (all but surely) no id's start, which digits may also be.
        let beyond = try runProcess(bin, ["export", "9999", "--db", db])
        #expect(beyond.status == 1 && beyond.err.contains("no draft number 9999"), "\(beyond.err)")
    }

    @Test func unusableDatabasePathsGiveClearErrors() throws {
        let binary = try #require(bikepathdPath())
        let dir = try TempDir()
        defer { dir.cleanup() }
        let r = try runProcess(binary, ["drafts", "list", "--db", dir.file("missing-dir/s.db")])
        #expect(r.status == 1)
        #expect(r.err.contains("no store at \(dir.file("missing-dir/s.db"))"), "\(r.err)")
    }

    /// A mistyped --db creates no empty store to say "no drafts" with exit 0: it is refused.
    @Test func readAndEditCommandsRefuseAMissingStoreAndCreateNothing() throws {
        let binary = try #require(bikepathdPath())
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = dir.file("typo.db")
        for args in [
            ["drafts", "list"], ["drafts", "show", "x"], ["drafts", "confirm", "x"], ["verify"], ["stats"],
            ["export", "x"], ["sync", "status"], ["sync", "consent"], ["sync", "consent", "trips", "on"],
        ] {
            let r = try runProcess(binary, args + ["--db", db])
            #expect(r.status == 1, "\(args): \(r.out)")
            #expect(r.err.contains("no store at \(db)"), "\(args): \(r.err)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "\(args) created a file")
        }
    }

    /// A damaged store is not moved aside for an empty one that `verify` calls "ok: 0
    /// link(s)": every read names the damage, exits non-zero and leaves the file alone.
    @Test func readCommandsNameADamagedStoreAndLeaveItAlone() throws {
        let (bin, dir, db) = try prepared()
        defer { dir.cleanup() }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        // Overwrite the middle of the file: pages are damaged, the header still says SQLite.
        let middle = bytes.count / 2
        bytes.replaceSubrange(middle..<(middle + 8192), with: Data(repeating: 0xA5, count: 8192))
        try bytes.write(to: URL(fileURLWithPath: db))
        // SQLite's own -wal/-shm companions may appear beside the file (a reader of a WAL
        // database needs them); no other file may: nothing moved aside, nothing new.
        func files() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }.sorted()
        }
        let before = try files()
        for args in [["verify"], ["drafts", "list"], ["stats"], ["export", "x"], ["sync", "status"], ["drafts", "confirm", "x"]] {
            let r = try runProcess(bin, args + ["--db", db])
            #expect(r.status != 0, "\(args): \(r.out)")
            #expect(r.err.contains("is damaged") && r.err.contains("left untouched"), "\(args): \(r.err)")
            #expect(try files() == before, "\(args) moved or created a file")
            #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == bytes, "\(args) changed the file")
        }
        // The daemon's open does move it aside, keeps it, and says so in `diagnose`.
        let store = try Store.open(path: db)
        #expect(store.openReport.movedAsideTo == db + ".corrupt-1")
        try store.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: db + ".corrupt-1")) == bytes)
        let diagnose = try runProcess(
            bin, ["diagnose", "--db", db, "--duration", "0.5", "--gpsd-port", "1", "--iio-uri", "ip:127.0.0.1:1"])
        #expect(diagnose.out.contains("moved to \(db).corrupt-1"), "\(diagnose.out)")
    }

    /// `stats` and `verify` on a store
    /// on a read-only mount. The store is opened read-only, and the daemon keeps its
    /// -wal/-shm files (SQLITE_FCNTL_PERSIST_WAL), without which SQLite cannot read a
    /// WAL database there.
    @Test func readCommandsWorkOnAReadOnlyMount() throws {
        guard isRoot else {
            #expect(!isCI, "needs root for a mount namespace")
            return
        }
        let (bin, dir, db) = try prepared()
        defer { dir.cleanup() }
        let script =
            "mount --bind \(dir.path) \(dir.path) && mount -o remount,ro,bind \(dir.path) && "
            + "\(bin) stats --db \(db) && \(bin) verify --db \(db) && \(bin) drafts list --db \(db)"
        let r = try runProcess("/usr/bin/unshare", ["-m", "sh", "-c", script])
        #expect(r.status == 0, "\(r.out)\n\(r.err)")
        #expect(r.out.contains("trips: 2") && r.out.contains("ok: ") && r.out.contains("to review"), "\(r.out)")
    }
}
