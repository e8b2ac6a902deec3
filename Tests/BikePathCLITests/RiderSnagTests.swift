import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import GRDB
import Testing

/// The snags a new rider meets, each run through the built `bikepathd` on a real store as the
/// rider met it; each test fails on code that has the snag.
@Suite(.ownThreads) struct RiderSnagTests {
    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    private func write(_ text: String, _ path: String) throws -> String {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `bikepathd` run from `directory`, as a rider in a shell there (relative paths are the directory's).
    private func runIn(_ directory: String, _ bin: String, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let quoted = ([bin] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        return try runProcess("/bin/sh", ["-c", "cd '\(directory)' && exec \(quoted)"])
    }

    /// Gives the second ride's trip an id that starts with the digits 3138 (ids are hex UUIDs, so a
    /// prefix made of digits is an ordinary one), everywhere the store names it.
    private func renameSecondTrip(_ db: String) throws -> String {
        let queue = try DatabaseQueue(path: db)
        defer { try? queue.close() }
        return try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            let old = try #require(try String.fetchOne(db, sql: "SELECT id FROM trips ORDER BY seq LIMIT 1 OFFSET 1"))
            let new = "3138" + old.dropFirst(4)
            for (table, column) in [
                ("trips", "id"), ("track_points", "trip_id"), ("events", "trip_id"), ("road_quality", "trip_id"), ("drafts", "trip_id"),
                ("milestones", "trip_id"),
            ] {
                try db.execute(sql: "UPDATE \(table) SET \(column) = ? WHERE \(column) = ?", arguments: [new, old])
            }
            return new
        }
    }

    @Test("export 3138: digits that are no draft's number are an id prefix; neither is said clearly")
    func exportByADigitPrefix() throws {
        let (bin, dir, db) = try storeWithTwoRides()
        defer { dir.cleanup() }
        let trip = try renameSecondTrip(db)
        let byID = try runProcess(bin, ["export", "--format", "geojson", trip, "--db", db])
        #expect(byID.status == 0, "\(byID.err)")
        let byDigits = try runProcess(bin, ["export", "--format", "geojson", "3138", "--db", db])
        #expect(byDigits.status == 0 && byDigits.out == byID.out, "\(byDigits.err)")
        // A number of `drafts list` still names the draft.
        #expect(try runProcess(bin, ["export", "--format", "geojson", "2", "--db", db]).out == byID.out)
        // Digits that name nothing say both readings.
        let nothing = try runProcess(bin, ["export", "9999", "--db", db])
        #expect(nothing.status == 1 && nothing.err.contains("no draft number 9999 and no id starting with 9999"), "\(nothing.err)")
    }

    @Test("config check --config FILE works as the positional FILE does")
    func configCheckTakesConfig() throws {
        let bin = try #require(bikepathdPath())
        let dir = try TempDir()
        defer { dir.cleanup() }
        let good = try write("[gnss]\nport = 2947\n", dir.file("good.toml"))
        let bad = try write("[gnss]\nport = 0\n", dir.file("bad.toml"))
        let byOption = try runProcess(bin, ["config", "check", "--config", good])
        #expect(byOption.status == 0 && byOption.out.contains("\(good): ok"), "\(byOption.err)")
        #expect(try runProcess(bin, ["config", "check", "--config", bad]).status == 78)
        let both = try runProcess(bin, ["config", "check", good, "--config", bad])
        #expect(both.status == 64 && both.err.contains("give one"), "\(both.err)")
    }

    @Test("export --json prints JSON (GeoJSON), and refuses --format gpx --json clearly")
    func exportJSON() throws {
        let (bin, dir, db) = try storeWithTwoRides()
        defer { dir.cleanup() }
        let r = try runProcess(bin, ["export", "1", "--db", db, "--json"])
        #expect(r.status == 0, "\(r.err)")
        #expect(try json(r.out)["type"] as? String == "FeatureCollection", "\(r.out.prefix(80))")
        let gpx = try runProcess(bin, ["export", "1", "--db", db, "--json", "--format", "gpx"])
        #expect(gpx.status == 64 && gpx.err.contains("GPX is XML") && !gpx.out.contains("<?xml"), "\(gpx.err)")
    }

    @Test("status --json with no daemon: {\"error\": …} on stdout as well as the message on stderr")
    func statusJSONError() throws {
        let bin = try #require(bikepathdPath())
        let dir = try TempDir()
        defer { dir.cleanup() }
        let r = try runProcess(bin, ["status", "--json", "--status-socket", dir.file("nobody.sock")])
        #expect(r.status == 1)
        let error = try json(r.out)["error"] as? String
        #expect(error?.contains("no bikepathd answers on \(dir.file("nobody.sock"))") == true, "\(r.out)")
        #expect(r.err.contains("no bikepathd answers"), "\(r.err)")
    }

    @Test("review pair prints the page's URL beside the code")
    func reviewPairURL() throws {
        let (bin, dir, db) = try storeWithTwoRides()
        defer { dir.cleanup() }
        let served = try write("[review]\nlisten = \"127.0.0.1:18099\"\n", dir.file("served.toml"))
        let text = try runProcess(bin, ["review", "pair", "--db", db, "--config", served])
        #expect(text.status == 0 && text.out.contains("open http://127.0.0.1:18099 and type it"), "\(text.out)\(text.err)")
        let document = try json(try runProcess(bin, ["review", "pair", "--db", db, "--config", served, "--json"]).out)
        #expect(document["urls"] as? [String] == ["http://127.0.0.1:18099"])
        // No review.listen: `run` serves no page; `bikepathd review` serves it on its default.
        let unset = try write("[gnss]\nport = 2947\n", dir.file("unset.toml"))
        let alone = try runProcess(bin, ["review", "pair", "--db", db, "--config", unset])
        #expect(alone.out.contains("http://127.0.0.1:8080") && alone.out.contains("`bikepathd review`"), "\(alone.out)")
    }

    @Test("relative --db, --status-socket and --config are the working directory's, as with any Unix tool")
    func relativePaths() throws {
        let bin = try #require(bikepathdPath())
        let dir = try TempDir()
        defer { dir.cleanup() }
        let recording = packageRoot + "/Recordings/allthedocks-GX010056.bpr"
        _ = try write("[gnss]\nport = 2947\n", dir.file("c.toml"))
        let run = try runIn(
            dir.path, bin, ["run", "--config", "c.toml", "--replay", recording, "--db", "s.sqlite", "--status-socket", "st.sock"])
        #expect(run.status == 0, "\(run.err)")
        #expect(FileManager.default.fileExists(atPath: dir.file("s.sqlite")), "the store is made in the working directory")
        let list = try runIn(dir.path, bin, ["drafts", "list", "--db", "s.sqlite", "--config", "c.toml"])
        #expect(list.status == 0 && list.out.contains("to review"), "\(list.err)")
        // A relative socket is asked where it is, and the error names the absolute path.
        let status = try runIn(dir.path, bin, ["status", "--status-socket", "st.sock"])
        #expect(status.status == 1 && status.err.contains("no bikepathd answers on \(dir.file("st.sock"))"), "\(status.err)")
    }
}
