import BikePathCore
import BikePathTestSupport
import Foundation
import Testing
@testable import BikePathSensors
#if canImport(Glibc)
    import Glibc
#endif

/// A real gpsd fed a recorded NMEA log over UDP (`gpsd -N -n -b -S PORT udp://…`).
@Suite("GNSS source against a real gpsd", .serialized, .ownThreads)
struct GPSDSourceRealTests {
    static let log = RealDaemons.fixtures.appendingPathComponent("bike.nmea")

    /// The sentences and the distinct epoch times (RMC time + date) in the log.
    static func expected(shift: Double = 0) throws -> (sentences: [String], epochs: [Int64]) {
        let lines = try String(contentsOf: log, encoding: .utf8)
            .split(whereSeparator: \.isNewline).map(String.init).filter { $0.hasPrefix("$") }
        var epochs: [Int64] = []
        for line in lines where line.hasPrefix("$GPRMC") {
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            let hms = f[1], dmy = f[9]
            var tm = tm()
            tm.tm_hour = Int32(hms.prefix(2))!
            tm.tm_min = Int32(hms.dropFirst(2).prefix(2))!
            tm.tm_sec = Int32(hms.dropFirst(4).prefix(2))!
            tm.tm_mday = Int32(dmy.prefix(2))!
            tm.tm_mon = Int32(dmy.dropFirst(2).prefix(2))! - 1
            tm.tm_year = Int32(dmy.dropFirst(4).prefix(2))! + 100
            epochs.append((Int64(timegm(&tm)) + Int64(shift)) * 1_000_000_000)
        }
        return (lines, epochs)
    }

    final class Gpsd {
        let port = RealDaemons.freePort()
        let udpPort = RealDaemons.freePort()
        /// Where gpsd's own output goes (-D 2: devices opened and closed), one file per start
        /// (`gpsd.log.1`, `.2`, ...); nowhere when nil.
        let log: URL?
        private var starts = 0
        private(set) var child: ChildProcess?

        init(log: URL? = nil) { self.log = log }

        private var currentLog: URL? { log?.appendingPathExtension("\(starts)") }

        func start() throws {
            starts += 1
            child = try ChildProcess(
                "gpsd", ["-N", "-n", "-b", "-D", "2", "-S", "\(port)", "udp://127.0.0.1:\(udpPort)"], output: currentLog)
            #expect(RealDaemons.waitForListener(port: port), "gpsd did not listen on \(port)")
        }

        /// What gpsd itself reports for 2 s (`gpspipe -w`: its devices, then its fixes), and the
        /// end of its log: for a failure's message, to tell a gpsd without its device or without
        /// data from a client that stopped listening.
        func view() -> String {
            let piped =
                (try? runProcess("/usr/bin/gpspipe", ["-w", "-x", "2", "127.0.0.1:\(port)"], timeout: 10))
                .map { "gpspipe: \($0.out.prefix(1500)) \($0.err.prefix(300))" } ?? "gpspipe did not run"
            let logged = currentLog.flatMap { try? String(contentsOf: $0, encoding: .utf8) }.map { String($0.suffix(1500)) } ?? ""
            return "\(piped); gpsd's log ends: \(logged)"
        }

        func kill() {
            child?.stop(signal: SIGKILL)
            child = nil
        }

        func feed(shift: Double = 0) throws {
            var args = [
                RealDaemons.harness.appendingPathComponent("gpsd_udp_feed.py").path,
                GPSDSourceRealTests.log.path, "\(udpPort)",
            ]
            if shift != 0 { args += ["--time-shift", "\(shift)"] }
            let feeder = try ChildProcess("python3", args)
            #expect(feeder.waitForExit() == 0)
        }

        /// Live mode: `hz` epochs a second for `seconds`, times advancing (gpsd_udp_feed.py --epoch-hz).
        func feedLive(hz: Double, seconds: Double) throws {
            let feeder = try ChildProcess(
                "python3",
                [
                    RealDaemons.harness.appendingPathComponent("gpsd_udp_feed.py").path,
                    GPSDSourceRealTests.log.path, "\(udpPort)",
                    "--epoch-hz", "\(hz)", "--seconds", "\(seconds)",
                ])
            #expect(feeder.waitForExit() == 0)
        }
    }

    @Test(
        "sees every epoch and every sentence, then reconnects after gpsd is killed and restarted",
        .enabled(if: RealDaemons.shouldRun(["gpsd"]), "needs gpsd and python3 (skipped locally; required on CI)"),
        .timeLimitOnceRunning(.minutes(1)))
    func everyEpochAndReconnect() async throws {
        guard RealDaemons.check(["gpsd"]) else { return }
        let gpsd = Gpsd()
        try gpsd.start()
        defer { gpsd.kill() }

        let source = GPSDSource(
            configuration: GPSDConfiguration(
                host: "127.0.0.1", port: gpsd.port, initialBackoff: 0.05, maximumBackoff: 0.4))
        let events = Collector<GNSSEvent>()
        source.start {
            events.append($0); return true
        }
        defer { source.stop() }

        #expect(await RealDaemons.wait(timeout: 5) { source.status.connected && source.status.gpsdVersion != nil })
        try await Task.sleep(nanoseconds: 200_000_000)  // let gpsd register the WATCH before data flows
        try gpsd.feed()

        let first = try Self.expected()
        #expect(await RealDaemons.wait(timeout: 10) { source.status.epochs >= first.epochs.count })
        let fixTimes = events.all.compactMap { if case .fix(let f) = $0 { f.time?.nanosecondsSince1970 } else { nil } }
        #expect(fixTimes == first.epochs, "one fix per epoch, in order, no duplicates")
        let relayed = events.all.compactMap { if case .record(.nmea(_, let s)) = $0 { s } else { nil } }
        #expect(relayed == first.sentences, "gpsd relayed every raw sentence unchanged")
        let status = source.status
        #expect(status.duplicateEpochReports > 0, "gpsd sends several TPVs per epoch; the extra ones are counted")
        #expect(status.fixMode == .threeD)
        #expect(status.satellitesUsed == 8)
        #expect(status.hdop == 0.9)
        #expect(status.devices == ["udp://127.0.0.1:\(gpsd.udpPort)"])
        #expect(status.clockOffsetSeconds != nil, "3D fixes from 2024 are plausible")
        let receiveTimes = events.all.compactMap { if case .record(let r) = $0 { r.time } else { nil } }
        #expect(receiveTimes == receiveTimes.sorted(), "receive times are monotonic")

        // gpsd dies: the source notices and keeps trying.
        gpsd.kill()
        #expect(await RealDaemons.wait(timeout: 5) { !source.status.connected })
        #expect(source.status.disconnects == 1)
        try await Task.sleep(nanoseconds: 500_000_000)
        #expect(source.status.connectFailures > 0, "reconnect attempts while gpsd is down are counted")

        // gpsd is back on the same port: the source reconnects by itself and sees new epochs.
        try gpsd.start()
        #expect(await RealDaemons.wait(timeout: 5) { source.status.connected && source.status.connects == 2 })
        try await Task.sleep(nanoseconds: 200_000_000)
        try gpsd.feed(shift: 3600)
        let second = try Self.expected(shift: 3600)
        #expect(await RealDaemons.wait(timeout: 10) { source.status.epochs >= first.epochs.count + second.epochs.count })
        let allFixTimes = events.all.compactMap { if case .fix(let f) = $0 { f.time?.nanosecondsSince1970 } else { nil } }
        #expect(allFixTimes == first.epochs + second.epochs)
    }

    @Test(
        "gpsd keeps every fix of an imported recording: each TPV it sends for the ride has a 2D or 3D fix",
        .enabled(if: RealDaemons.shouldRun(["gpsd", "gpspipe"]), "needs gpsd, gpspipe and python3 (skipped locally; required on CI)"),
        .timeLimitOnceRunning(.minutes(1)))
    func importedSentencesKeepTheirFix() async throws {
        guard RealDaemons.check(["gpsd", "gpspipe"]) else { return }
        // The bundled ride's first 20 s (≈ 370 epochs at 18 Hz, all with a 3D fix), as `import gopro`
        // wrote them. A GGA without a satellite count is a no-fix GGA to gpsd, and gpsd then
        // sends mode 1 for any epoch it ends on that GGA.
        let recording = RealDaemons.harness.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Recordings/allthedocks-GX010056.bpr").path
        let (_, records, _) = try RecordingReader.readAll(path: recording)
        let sentences = records.compactMap { r -> String? in
            guard case .nmea(let t, let s) = r, t.seconds < 20 else { return nil }
            return s
        }
        let epochs = sentences.filter { $0.hasPrefix("$GPRMC") }.count
        let dir = try TempDir()
        defer { dir.cleanup() }
        let log = dir.url.appendingPathComponent("ride.nmea")
        try sentences.joined(separator: "\n").write(to: log, atomically: true, encoding: .utf8)

        let gpsd = Gpsd()
        try gpsd.start()
        defer { gpsd.kill() }
        let piped = dir.url.appendingPathComponent("tpv.json")
        let pipe = try ChildProcess("gpspipe", ["-w", "127.0.0.1:\(gpsd.port)"], output: piped)
        defer { pipe.stop(signal: SIGKILL) }
        try await Task.sleep(nanoseconds: 300_000_000)  // let gpsd register the WATCH before data flows
        let feeder = try ChildProcess(
            "python3", [RealDaemons.harness.appendingPathComponent("gpsd_udp_feed.py").path, log.path, "\(gpsd.udpPort)"])
        #expect(feeder.waitForExit() == 0)

        func reports() -> [(time: String, mode: Int)] {
            let text = (try? String(contentsOf: piped, encoding: .utf8)) ?? ""
            return text.split(whereSeparator: \.isNewline).compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    object["class"] as? String == "TPV", let time = object["time"] as? String, let mode = object["mode"] as? Int
                else { return nil }
                return (time, mode)
            }
        }
        #expect(await RealDaemons.wait(timeout: 10) { Set(reports().map(\.time)).count >= epochs }, "gpsd reported every epoch")
        let noFix = reports().filter { $0.mode < 2 }
        #expect(noFix.isEmpty, "\(noFix.count) of \(reports().count) TPVs without a fix, first at \(noFix.first?.time ?? "")")
    }
}
