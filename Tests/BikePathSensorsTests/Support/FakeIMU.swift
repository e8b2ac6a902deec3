import BikePathTestSupport
import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// The fake 6-axis IIO device of Tests/Harness, served by a real iiod inside a private
/// mount namespace (iiod_fake_imu.sh). The script execs iiod, so the pid we started is
/// iiod's; the feeder writes its own pid file. Both are stopped by pid.
final class FakeIMU {
    let run: TempDir
    let port = RealDaemons.freePort()
    let variant: String
    let feederOptions: [String]
    private var iiod: ChildProcess?

    init(variant: String = "normal", feederOptions: [String] = []) throws {
        run = try TempDir()
        self.variant = variant
        self.feederOptions = feederOptions
    }

    var uri: String { "ip:127.0.0.1:\(port)" }
    var device: URL { run.url.appendingPathComponent("sys/iio:device0") }

    func start() throws {
        let script = RealDaemons.harness.appendingPathComponent("iiod_fake_imu.sh").path
        iiod = try ChildProcess(
            script, [run.url.path, "\(port)", "--variant", variant] + feederOptions,
            output: run.url.appendingPathComponent("iiod.log"))
        #expect(RealDaemons.waitForListener(port: port), "iiod did not listen on \(port): \(log("iiod.log"))")
    }

    /// The device disappears: feeder (SIGTERM) and iiod (SIGKILL: it ignores SIGTERM) by pid.
    func stop() {
        if let text = try? String(contentsOf: run.url.appendingPathComponent("feeder.pid"), encoding: .utf8),
            let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            kill(pid, SIGTERM)
            try? FileManager.default.removeItem(at: run.url.appendingPathComponent("feeder.pid"))
        }
        iiod?.stop(signal: SIGKILL)
        iiod = nil
    }

    func attribute(_ name: String) throws -> Double {
        let text = try String(contentsOf: device.appendingPathComponent(name), encoding: .utf8)
        return try #require(Double(text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    func log(_ name: String) -> String {
        (try? String(contentsOf: run.url.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }

    deinit {
        stop()
        run.cleanup()
    }

    /// The feeder's raw values for sample counter n (see iio_feeder.py).
    static func raw(_ n: Int) -> (accel: [Int], gyro: [Int]) {
        (
            [(7 * n) % 2001 - 1000, (13 * n) % 4001 - 2000, 16400 + n % 50],
            [(3 * n) % 601 - 300, -(n % 1000), n % 32768]
        )
    }
}
