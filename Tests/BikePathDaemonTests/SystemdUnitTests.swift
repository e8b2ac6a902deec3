import BikePathTestSupport
import Foundation
import Testing

/// Runs scripts/check-systemd.sh: `systemd-analyze verify` clean and
/// `systemd-analyze security --offline=true` ≤ 2.0 for systemd/bikepathd.service.
@Suite("systemd unit", .ownThreads)
struct SystemdUnitTests {
    static let hasSystemdAnalyze = FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")

    @Test("The unit verifies clean and scores OK (≤ 2.0)", .enabled(if: hasSystemdAnalyze, "needs systemd-analyze"))
    func unitChecks() throws {
        let (status, output) = try runScript(["scripts/check-systemd.sh"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("verify: clean"))
        let score = output.split(separator: "\n").first { $0.hasPrefix("security: exposure ") }
        #expect(score != nil, "\(output)")
    }

    @Test("The check fails on a unit with a bad key and on a weak unit", .enabled(if: hasSystemdAnalyze, "needs systemd-analyze"))
    func checkFailsOnBadUnits() throws {
        let directory = try TempDir().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let unit = try Repository.text("systemd/bikepathd.service")
        let typo = directory + "/typo.service"
        try (unit + "\n[Service]\nRestartt=always\n").write(toFile: typo, atomically: true, encoding: .utf8)
        let (typoStatus, typoOutput) = try runScript(["scripts/check-systemd.sh", typo])
        #expect(typoStatus != 0)
        #expect(typoOutput.contains("Restartt"))
        let weak = directory + "/weak.service"
        try "[Unit]\nDescription=weak\n[Service]\nExecStart=/usr/local/bin/bikepathd run\n".write(
            toFile: weak, atomically: true, encoding: .utf8)
        let (weakStatus, weakOutput) = try runScript(["scripts/check-systemd.sh", weak])
        #expect(weakStatus != 0)
        #expect(weakOutput.contains("is above 2.0"))
    }

    /// The script (a path under the repository) run by bash; stdout and stderr together.
    private func runScript(_ arguments: [String]) throws -> (Int32, String) {
        let result = try runCommand(
            "/bin/bash", [Repository.root.appendingPathComponent(arguments[0]).path] + arguments.dropFirst(), timeout: 120)
        return (result.status, result.out + result.err)
    }
}

/// The store is the rider's: group bikepath may enter and write the state directory.
@Suite("systemd unit: the rider's group", .ownThreads)
struct SystemdGroupAccessTests {
    @Test("StateDirectoryMode gives group bikepath rwx, others nothing")
    func stateDirectoryIsTheGroups() throws {
        let unit = try Repository.text("systemd/bikepathd.service")
        let line = unit.split(separator: "\n").first { $0.hasPrefix("StateDirectoryMode=") }
        let mode = try #require(line.flatMap { Int($0.dropFirst("StateDirectoryMode=".count), radix: 8) })
        #expect(mode & 0o070 == 0o070, "group needs rwx to open the store and make its -wal/-shm")
        #expect(mode & 0o007 == 0)
        #expect(unit.contains("Group=bikepath"))
    }
}
