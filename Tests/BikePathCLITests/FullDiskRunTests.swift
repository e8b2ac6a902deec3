import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import GRDB
import Testing
@testable import BikePathStore

/// `bikepathd run --replay` of the crash recording into a store on a nearly full
/// 2 MB tmpfs: the SOS is stored (the reserve gives it room), or the daemon says
/// it was lost and exits 74 — never "everything committed" with data missing.
@Suite(.serialized, .ownThreads) struct FullDiskRunTests {
    static let crash = packageRoot + "/Recordings/simulated-crash-GX010056.bpr"

    /// Leaves only `free` bytes available on the file system holding `directory`.
    private func fill(_ directory: String, leaving free: Int64) throws {
        var fs = statvfs()
        try #require(statvfs(directory, &fs) == 0)
        let available = Int64(fs.f_bavail) * Int64(fs.f_frsize)
        try #require(available > free, "only \(available) bytes free")
        let fd = open(directory + "/filler", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(fd) }
        try #require(posix_fallocate(fd, 0, off_t(available - free)) == 0)
    }

    private func run(store: String, socket: String, config: String) throws -> (status: Int32, err: String) {
        let bikepathd = try #require(bikepathdPath(), "bikepathd is not built")
        // Crash detection needs a hub to send the SOS to; none answers on port 9.
        try
            "[crash]\nenabled = true\n[sync]\nhub_url = \"http://127.0.0.1:9\"\n[store]\npath = \"\(store)\"\n[status]\nsocket = \"\(socket)\"\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let result = try runProcess(bikepathd, ["run", "--config", config, "--replay", Self.crash])
        return (result.status, result.err)
    }

    @Test(arguments: [1_536, 1_024, 768, 512, 448, 384, 320] as [Int64])
    func sosSurvivesOrItsLossIsReported(freeKilobytes: Int64) throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        guard let disk = try mountSmallDisk(dir, for: "the full-disk run test") else { return }
        defer { _ = try? runProcess("/bin/umount", [disk]) }
        try fill(disk, leaving: freeKilobytes * 1024)

        let path = disk + "/s.db"
        let run = try run(store: path, socket: dir.file("status.sock"), config: dir.file("bikepathd.toml"))
        guard FileManager.default.fileExists(atPath: path) else {
            #expect(run.status == 1 && run.err.contains("cannot open the store"), "\(run.err)")
            return
        }
        let store = try Store.open(path: path)
        defer { try? store.close() }
        let sos = try store.count("SELECT COUNT(*) FROM events WHERE kind = 'sos'")
        let lostLine = run.err.split(separator: "\n").first { $0.contains("NOT everything committed") }
        if run.status == 0 {
            #expect(sos == 1, "exit 0 must mean everything was committed: \(run.err)")
            #expect(run.err.contains("stopped; everything committed"))
        } else {
            #expect(run.status == 74, "\(run.err)")
            #expect(lostLine != nil, "the log says what was lost: \(run.err)")
            #expect(!run.err.contains("everything committed\n") || lostLine != nil)
        }
        if sos == 0 {
            #expect(lostLine?.contains("1 SOS") == true, "a lost SOS is named: \(run.err)")
            #expect(try store.diagnostics().diskFullLostSOS == 1, "diagnose keeps the loss")
        }
        // With the reserve there is room for the SOS whenever the store could be made.
        #expect(sos == 1, "free \(freeKilobytes) KiB: \(run.err)")
        if run.status == 74 {
            let diagnostics = try store.diagnostics()
            #expect(diagnostics.diskFullFailedCommits > 0 || diagnostics.diskFullLostOutputs > 0)
        }
    }
}
