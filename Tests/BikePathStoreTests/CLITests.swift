import BikePathTestSupport
import Foundation
import Testing
@testable import BikePathStore

/// The `bikepathd drafts|export|stats` commands, run as a rider would.
@Suite struct CLITests {
    private func prepared() throws -> (binary: String, dir: TempDir, db: String) {
        let binary = try #require(bikepathdPath(), "bikepathd must be built next to the tests")
        let dir = try TempDir()
        let db = dir.file("s.db")
        let result = try runProcess(binary, ["store-replay", "--db", db, "--trips", "2", "--seconds-per-trip", "300"])
        #expect(result.status == 0, "\(result.err)")
        return (binary, dir, db)
    }

    private func json(_ text: String) throws -> Any { try JSONSerialization.jsonObject(with: Data(text.utf8)) }

    @Test func listShowEditConfirmRejectWithJSON() throws {
        let (bin, dir, db) = try prepared()
        defer { dir.cleanup() }
        let list = try runProcess(bin, ["drafts", "list", "--db", db, "--json"])
        #expect(list.status == 0)
        let drafts = try #require(try json(list.out) as? [[String: Any]])
        #expect(drafts.count == 2)
        let id = try #require(drafts[0]["id"] as? String)

        let show = try runProcess(bin, ["drafts", "show", id, "--db", db, "--json"])
        let doc = try #require(try json(show.out) as? [String: Any])
        let obstacles = try #require(doc["obstacles"] as? [[String: Any]])
        let first = try #require(obstacles.first?["id"] as? String)

        let edit = try runProcess(bin, ["drafts", "edit", id, "--db", db, "--json", "--set-kind", "\(first)=debris",
                                        "--add", "pothole@52.52,13.41", "--add", "bump@100", "--path-status", "medium"])
        #expect(edit.status == 0, "\(edit.err)")
        let edited = try #require(try json(edit.out) as? [String: Any])
        #expect(edited["pathStatus"] as? String == "medium")
        let editedObstacles = try #require(edited["obstacles"] as? [[String: Any]])
        #expect(editedObstacles.count == obstacles.count + 2)
        // "bump@100" is 100 s after the trip's start.
        let trip = try #require(doc["trip"] as? [String: Any])
        let start = try #require(trip["startTimeNanoseconds"] as? Int64)
        #expect(editedObstacles.contains { $0["kind"] as? String == "bump" && $0["origin"] as? String == "rider"
            && $0["timeNanoseconds"] as? Int64 == start + 100_000_000_000 })

        let confirm = try runProcess(bin, ["drafts", "confirm", id, "--db", db, "--json"])
        #expect(confirm.status == 0)
        #expect((try json(confirm.out) as? [String: String])?["state"] == "queued")

        // Wrong state: a queued draft cannot be confirmed again or edited.
        let again = try runProcess(bin, ["drafts", "confirm", id, "--db", db])
        #expect(again.status == 1)
        #expect(again.err.contains("is queued; it cannot become confirmed"))
        let late = try runProcess(bin, ["drafts", "edit", id, "--db", db, "--json", "--drop", first])
        #expect(late.status == 1)
        #expect((try json(late.out) as? [String: String])?["error"]?.contains("only pending drafts can be edited") == true)

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

    @Test func exportAndStatsCommands() throws {
        let (bin, dir, db) = try prepared()
        defer { dir.cleanup() }
        let store = try Store.open(path: db)
        let trip = try #require(try store.tripIDs().first)
        let gpx = try runProcess(bin, ["export", "--format", "gpx", trip, "--db", db])
        #expect(gpx.status == 0 && gpx.out.hasPrefix("<?xml") && gpx.out.contains("<wpt "))
        let geo = try runProcess(bin, ["export", "--format", "geojson", trip, "--db", db])
        #expect((try json(geo.out) as? [String: Any])?["type"] as? String == "FeatureCollection")
        let missing = try runProcess(bin, ["export", "--format", "gpx", "nope", "--db", db])
        #expect(missing.status == 1 && missing.err.contains("no trip with id nope"))
        let stats = try runProcess(bin, ["stats", "--db", db, "--json"])
        let totals = try #require(try json(stats.out) as? [String: Any])
        #expect(totals["trips"] as? Int == 2)
        #expect(abs((totals["distanceMeters"] as? Double ?? 0) - (try store.statistics().distanceMeters)) < 1e-6)
    }

    @Test func unusableDatabasePathsGiveClearErrors() throws {
        let binary = try #require(bikepathdPath())
        let dir = try TempDir()
        defer { dir.cleanup() }
        let r = try runProcess(binary, ["drafts", "list", "--db", dir.file("missing-dir/s.db")])
        #expect(r.status == 1)
        #expect(r.err.contains("is not writable"))
    }
}
