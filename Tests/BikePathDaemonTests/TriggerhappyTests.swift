import BikePathTestSupport
import Foundation
import Testing

/// The handlebar button's triggerhappy file (systemd/triggerhappy/bikepath.conf), read by
/// the real thd: every line parses and names `bikepathd mark`.
@Suite("triggerhappy trigger file", .ownThreads)
struct TriggerhappyTests {
    static let thd = "/usr/sbin/thd"

    @Test(
        "thd parses the shipped triggers",
        .enabled(if: FileManager.default.isExecutableFile(atPath: thd), "needs triggerhappy (scripts/ensure-deps.sh installs it)"))
    func parses() throws {
        let file = packageRoot + "/systemd/triggerhappy/bikepath.conf"
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("\t1\t/usr/local/bin/bikepathd mark"))
        // --dump with no usable device: thd loads the triggers, reports each bad line, exits.
        let run = try runProcess(Self.thd, ["--triggers", file, "--dump", "/dev/null"])
        #expect(!run.err.contains("Unable to parse") && !run.out.contains("Unable to parse"), "\(run)")
        // The same check sees a bad line (it is not blind).
        let bad = try TempDir().path + "/bad.conf"
        try "BTN_NOSUCH\t1\ttrue\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = try runProcess(Self.thd, ["--triggers", bad, "--dump", "/dev/null"])
        #expect((refused.err + refused.out).contains("Unable to parse"))
        // The key the overlay's keycode=256 produces is one thd knows.
        #expect(try runProcess(Self.thd, ["--listevents"]).out.split(separator: "\n").contains("BTN_0"))
    }
}
