import BikePathDeviceTestSupport
import BikePathStore
import BikePathTestSupport
import Foundation
import Testing

/// `bikepathd path add|list|delete` as a rider and a field technician use them (docs/cli.md,
/// "Paths by name"): what each prints, in text and JSON, and each bad input's error and exit code.
@Suite(.ownThreads) struct ManualPathCLITests {
    private func bikepathd() throws -> String { try #require(builtExecutable("bikepathd"), "bikepathd is not built") }

    static let streets = ["--street", "Aldersgate Street", "--street", "Goswell Road"]
    static let ends = ["--start", "51.519,-0.09705", "--end", "51.5241,-0.09625"]

    /// A fresh store and a configuration with a hub and a status socket no daemon listens on.
    private func device() throws -> (dir: TempDir, db: String, config: String) {
        let dir = try TempDir()
        let db = dir.file("s.db")
        try Store.open(path: db).close()
        let config = dir.file("c.toml")
        try "[sync]\nhub_url = \"http://127.0.0.1:1\"\n[status]\nsocket = \"\(dir.file("status.sock"))\"\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        return (dir, db, config)
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not JSON: \(text)")
    }

    @Test func addListAndDeleteSayWhereAPathStands() throws {
        let bin = try bikepathd()
        let (dir, db, config) = try device()
        defer { dir.cleanup() }
        let store = ["--db", db, "--config", config]

        // Trip sharing is off on a fresh store: the path is kept, and `add` says it stays.
        let held = try runProcess(bin, ["path", "add"] + Self.streets + Self.ends + ["--status", "requires-maintenance"] + store)
        #expect(held.status == 0, "\(held.err)")
        #expect(held.out.contains("queued; it stays on this device: trip sharing is off"), "\(held.out)")
        let heldID = try #require(held.out.split(separator: " ").dropFirst().first.map(String.init))
        #expect(UUID(uuidString: heldID) != nil, "\(held.out)")

        // `sync status` counts it beside the outbox's records: held while sharing is off.
        let whileOff = try json(try runProcess(bin, ["sync", "status", "--json"] + store).out)
        #expect(
            (whileOff["withheld"] as? [String: Int])?["manual_path"] == 1 && (whileOff["pending"] as? [String: Int]) == [:], "\(whileOff)")

        // With sharing on it waits for sync, and no daemon answers the socket.
        #expect(try runProcess(bin, ["sync", "consent", "trips", "on"] + store).status == 0)
        let queued = try json(
            try runProcess(bin, ["path", "add", "--street", "Old Street"] + Self.ends + ["--status", "opt", "--json"] + store).out)
        #expect(queued["state"] as? String == "queued" && queued["sync"] as? String == "queued", "\(queued)")
        #expect(queued["woken"] as? Bool == false && queued["waits_for"] as? String == "daemon", "\(queued)")
        let queuedID = try #require(queued["id"] as? String)

        let text = try runProcess(bin, ["path", "list"] + store)
        #expect(text.status == 0, "\(text.err)")
        let lines = text.out.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(text.out)")
        #expect(lines[0].hasPrefix(heldID) && lines[0].contains("waiting to send"), "\(lines[0])")
        #expect(lines[0].contains("Aldersgate Street → Goswell Road  status: needs maintenance"), "\(lines[0])")
        #expect(lines[1].contains("not sent yet") && lines[3].contains("not sent yet"), "\(text.out)")
        #expect(lines[2].hasPrefix(queuedID) && lines[2].contains("status: optimal"), "\(lines[2])")

        let listed = try json(try runProcess(bin, ["path", "list", "--json"] + store).out)
        let paths = try #require(listed["paths"] as? [[String: Any]])
        #expect(paths.map { $0["id"] as? String } == [heldID, queuedID])
        #expect(paths[0]["status"] as? String == "requiresMaintenance" && paths[0]["state"] as? String == "queued")
        #expect(paths[0]["streets"] as? [String] == ["Aldersgate Street", "Goswell Road"])
        let start = try #require(paths[0]["start"] as? [String: Any])
        #expect(start["lat"] as? Double == 51.519 && start["lon"] as? Double == -0.09705, "\(start)")
        #expect(paths[0]["attempts"] as? Int == 0 && paths[0]["length_m"] == nil && paths[0]["refusal"] == nil)
        #expect(JSONSchemaTests.violations(listed).isEmpty, "\(JSONSchemaTests.violations(listed))")

        // What the hub answered, as sync records it: the list shows it and a sent path stays.
        let s = try Store.open(path: db)
        try s.recordManualPathAttempt(heldID, .sent(lengthMeters: 689.6), utcNanoseconds: 1)
        try s.recordManualPathAttempt(queuedID, .refused(code: "street-count", message: "a path names 1–20 streets"), utcNanoseconds: 2)
        try s.close()
        let answered = try runProcess(bin, ["path", "list"] + store).out
        #expect(answered.contains("the hub made it: 690 m, counted as your rating"), "\(answered)")
        #expect(answered.contains("the hub refused it (street-count): a path names 1–20 streets — not retried"), "\(answered)")
        let refusal = try #require(try json(try runProcess(bin, ["path", "list", "--json"] + store).out)["paths"] as? [[String: Any]])
        #expect(refusal[0]["length_m"] as? Double == 689.6)
        #expect((refusal[1]["refusal"] as? [String: String])?["code"] == "street-count", "\(refusal[1])")
        // `sync status` and `diagnose` say the same: one sent, one refused with the hub's words and what to do.
        let status = try json(try runProcess(bin, ["sync", "status", "--json"] + store).out)
        #expect((status["sent"] as? [String: Int]) == ["manual_path": 1] && (status["pending"] as? [String: Int]) == [:], "\(status)")
        let refused = try #require((status["quarantined"] as? [[String: Any]])?.first, "\(status)")
        #expect(refused["kind"] as? String == "manual_path" && refused["id"] as? String == queuedID, "\(refused)")
        #expect(refused["reason"] as? String == "street-count: a path names 1–20 streets", "\(refused)")
        let diagnosis = try runProcess(
            bin, ["diagnose", "--db", db, "--duration", "0.5", "--gpsd-port", "1", "--iio-uri", "ip:127.0.0.1:1"]
        ).out
        #expect(diagnosis.contains("outbox: 0 waiting to send, 0 held on this device, 1 sent, 1 refused by the hub"), "\(diagnosis)")
        #expect(diagnosis.contains("`bikepathd path delete \(queuedID)` removes it"), "\(diagnosis)")

        let sent = try runProcess(bin, ["path", "delete", heldID] + store)
        #expect(sent.status == 1 && sent.err.contains("the hub made it") && sent.err.contains("has no delete"), "\(sent.err)")
        let gone = try runProcess(bin, ["path", "delete", String(queuedID.prefix(8)), "--json"] + store)
        #expect(gone.status == 0, "\(gone.out)")
        #expect(try json(gone.out)["state"] as? String == "refused" && (try json(gone.out)["deleted"] as? Bool) == true)
        let unknown = try runProcess(bin, ["path", "delete", "nope"] + store)
        #expect(unknown.status == 1 && unknown.err.contains("no path with id nope (see `bikepathd path list`)"), "\(unknown.err)")
        let left = try #require(try json(try runProcess(bin, ["path", "list", "--json"] + store).out)["paths"] as? [[String: Any]])
        #expect(left.map { $0["id"] as? String } == [heldID])
    }

    /// Each bad input is a usage error (64) that names it, and stores nothing.
    @Test func badInputIsRefusedAndNothingIsStored() throws {
        let bin = try bikepathd()
        let (dir, db, config) = try device()
        defer { dir.cleanup() }
        let store = ["--db", db, "--config", config]
        let twentyOne = (1...21).flatMap { ["--street", "Street \($0)"] }
        let cases: [(arguments: [String], says: String)] = [
            (Self.streets + ["--start", "51.519", "--end", "51.5241,-0.09625", "--status", "medium"], "--start wants LAT,LON"),
            (Self.streets + ["--start", "51.519,-0.09705", "--end", "north,-0.09625", "--status", "medium"], "--end wants LAT,LON"),
            (Self.streets + ["--start", "95,-0.09705", "--end", "51.5241,-0.09625", "--status", "medium"], "start.lat: must be"),
            (Self.streets + ["--start", "51.519,-190", "--end", "51.5241,-0.09625", "--status", "medium"], "start.lon: must be"),
            (Self.streets + Self.ends + ["--status", "fine"], "'fine' is not a path status"),
            (Self.ends + ["--status", "medium"], "a path names 1–20 streets, not 0"),
            (twentyOne + Self.ends + ["--status", "medium"], "a path names 1–20 streets, not 21"),
            (["--street", ""] + Self.ends + ["--status", "medium"], "streets[0]: must be a street's name"),
        ]
        for c in cases {
            let r = try runProcess(bin, ["path", "add"] + c.arguments + store)
            #expect(r.status == 64, "\(c.arguments): \(r.status) \(r.out)")
            #expect(r.err.contains(c.says), "\(c.arguments): \(r.err)")
        }
        #expect(try runProcess(bin, ["path", "list"] + store).out == "no paths (`bikepathd path add` enters one)\n")
    }

    /// A missing or damaged store is named, exit 1, and left as it was.
    @Test func aMissingOrDamagedStoreIsNamed() throws {
        let bin = try bikepathd()
        let dir = try TempDir()
        defer { dir.cleanup() }
        let missing = dir.file("missing.db")
        let add = try runProcess(bin, ["path", "add", "--street", "Old Street"] + Self.ends + ["--status", "medium", "--db", missing])
        #expect(add.status == 1 && add.err.contains("no store at \(missing)"), "\(add.err)")
        #expect(!FileManager.default.fileExists(atPath: missing))
        let damaged = dir.file("damaged.db")
        let garbage = Data(repeating: 0x5A, count: 8192)
        try garbage.write(to: URL(fileURLWithPath: damaged))
        let list = try runProcess(bin, ["path", "list", "--db", damaged, "--json"])
        #expect(list.status == 1, "\(list.out)")
        #expect((try json(list.out)["error"] as? String)?.contains("is damaged") == true, "\(list.out)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: damaged)) == garbage)
    }

    /// On a full disk (a 2 MB tmpfs, filled) `add` fails with exit 1 and says so; every path
    /// it said it stored is listed, and none it refused.
    @Test(.timeLimitOnceRunning(.minutes(2))) func aFullDiskRefusesAPathAndLosesNone() throws {
        let bin = try bikepathd()
        let dir = try TempDir()
        defer { dir.cleanup() }
        guard let disk = try mountSmallDisk(dir, for: "the full-disk path test") else { return }
        defer { _ = try? runProcess("/bin/umount", [disk]) }
        let db = disk + "/s.db"
        try Store.open(path: db).close()
        let add = ["path", "add", "--street", "Old Street"] + Self.ends + ["--status", "medium", "--db", db]
        #expect(try runProcess(bin, add).status == 0)
        _ = try runProcess("/bin/dd", ["if=/dev/zero", "of=\(disk)/fill", "bs=4k"])
        // The store's -wal reuses the room it has: adds go on until a page must be found.
        var stored = 1
        var refused: (status: Int32, out: String, err: String)?
        for _ in 0..<200 {
            let r = try runProcess(bin, add)
            guard r.status == 0 else {
                refused = r
                break
            }
            stored += 1
        }
        let full = try #require(refused, "200 paths fitted on a full disk")
        #expect(full.status == 1 && full.err.contains("disk is full"), "\(full.status): \(full.err)")
        _ = try runProcess("/bin/rm", ["\(disk)/fill"])
        let listed = try json(try runProcess(bin, ["path", "list", "--json", "--db", db]).out)["paths"] as? [[String: Any]]
        #expect(listed?.count == stored, "\(stored) stored, \(listed?.count ?? -1) listed")
    }
}
