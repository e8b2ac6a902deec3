import BikePathTestSupport
import BikePathCore
import Foundation
import Testing
@testable import BikePathSensors
#if canImport(Glibc)
    import Glibc
#endif

@Suite("Bad input at the sensor boundaries", .serialized, .ownThreads)
struct BadInputTests {
    static let tpv =
        #"{"class":"TPV","device":"/dev/ttyS0","mode":3,"time":"2024-06-01T12:00:00.000Z","lat":48.1,"lon":11.5,"altMSL":520.0,"speed":5.0}"#

    @Test("gpsd sending garbage, then disconnecting mid-line: counted, logged, reconnected, never stuck")
    func gpsdGarbage() async throws {
        let garbage = String(repeating: "x", count: 10_000)
        let server = try ScriptedTCPServer { _ in
            Array(
                ("""
                {"class":"VERSION","release":"3.22","rev":"fake","proto_major":3,"proto_minor":14}
                hello, I am not gpsd
                {"class":"TPV","mode":
                \(Self.tpv)
                \(garbage)
                $GPGGA,120000.00,4808.2292,N,01134.5674,E,1,08,0.9,520.0,M,47.0,M,,*62
                {"class":"TPV","device":"/dev/tt
                """).utf8)
        }
        defer { server.stop() }
        let source = GPSDSource(
            configuration: GPSDConfiguration(
                host: "127.0.0.1", port: server.port, initialBackoff: 0.05, maximumBackoff: 0.2))
        let events = Collector<GNSSEvent>()
        source.start {
            events.append($0); return true
        }
        defer { source.stop() }

        #expect(await RealDaemons.wait(timeout: 10) { source.status.disconnects >= 2 && server.connections >= 3 })
        let status = source.status
        #expect(status.gpsdVersion == "3.22")
        #expect(status.protocolErrors >= 2 * 2, "the plain-text line and the broken JSON, per connection")
        #expect(status.epochs >= 1, "the valid TPV between the garbage still counts")
        #expect(status.sentences >= 1, "the NMEA line after the garbage is still relayed")
        #expect(status.lastError != nil)
        #expect(events.all.contains(.connection(false)))
    }

    @Test(
        "IIO device with a scan element of unknown type: counted, ignored, the rest read",
        .enabled(
            if: RealDaemons.shouldRun(IIOSourceRealTests.prerequisites, needsRoot: true),
            "needs root, iiod, unshare and python3 (skipped locally; required on CI)"),
        .timeLimitOnceRunning(.minutes(1)))
    func unknownChannel() async throws {
        guard RealDaemons.check(IIOSourceRealTests.prerequisites, needsRoot: true) else { return }
        let imu = try FakeIMU(variant: "unknown-channel")
        try imu.start()
        defer { imu.stop() }
        let source = IIOSource(configuration: IIOConfiguration(uri: imu.uri, samplingFrequency: 100))
        let batches = Collector<[SensorRecord]>()
        source.start {
            batches.append($0); return true
        }
        defer { source.stop() }
        #expect(await RealDaemons.wait(timeout: 10) { source.status.samples >= 50 })
        let status = source.status
        #expect(status.unknownChannels == 1)
        #expect(status.devices.first?.ignoredChannels == ["bogus_x"])
        _ = try IIOSourceRealTests.checkValues(IIOSourceRealTests.samples(batches), imu)
    }

    @Test(
        "IIO device whose accel format is unsupported: refused with a reason, counted, no crash",
        .enabled(
            if: RealDaemons.shouldRun(IIOSourceRealTests.prerequisites, needsRoot: true),
            "needs root, iiod, unshare and python3 (skipped locally; required on CI)"),
        .timeLimitOnceRunning(.minutes(1)))
    func unsupportedFormat() async throws {
        guard RealDaemons.check(IIOSourceRealTests.prerequisites, needsRoot: true) else { return }
        let imu = try FakeIMU(variant: "bad-format")
        try imu.start()
        defer { imu.stop() }
        let source = IIOSource(configuration: IIOConfiguration(uri: imu.uri, initialBackoff: 0.05, maximumBackoff: 0.2))
        source.start { _ in true }
        defer { source.stop() }
        #expect(await RealDaemons.wait(timeout: 10) { source.status.connectFailures >= 3 })
        let status = source.status
        #expect(status.unsupportedFormats == 3, "accel x/y/z, each counted once")
        #expect(status.samples == 0 && !status.connected)
        #expect(status.lastError?.contains("storage of 24 bits") == true)
        #expect(status.devices.first?.ignoredChannels == ["accel_x", "accel_y", "accel_z"])
    }

    @Test(
        "IIO buffer reads that stall: timeouts counted and logged, reading resumes, the gap is counted",
        .enabled(
            if: RealDaemons.shouldRun(IIOSourceRealTests.prerequisites, needsRoot: true),
            "needs root, iiod, unshare and python3 (skipped locally; required on CI)"),
        .timeLimitOnceRunning(.minutes(1)))
    func stalledReads() async throws {
        guard RealDaemons.check(IIOSourceRealTests.prerequisites, needsRoot: true) else { return }
        let imu = try FakeIMU(feederOptions: ["--stall-after", "105", "--stall-seconds", "2.5"])
        try imu.start()
        defer { imu.stop() }
        let source = IIOSource(
            configuration: IIOConfiguration(
                uri: imu.uri, samplingFrequency: 200, timeout: 1, initialBackoff: 0.05, maximumBackoff: 0.2))
        let batches = Collector<[SensorRecord]>()
        source.start {
            batches.append($0); return true
        }
        defer { source.stop() }
        #expect(await RealDaemons.wait(timeout: 15) { source.status.samples >= 400 }, "reading resumes after the stall")
        let status = source.status
        #expect(status.timeouts + status.shortReads + status.readErrors > 0, "the stall is visible: \(status)")
        #expect(status.gaps >= 1, "the 2.5 s hole in the timestamps is a gap")
        #expect(status.missingSamples >= 400)
        _ = try IIOSourceRealTests.checkValues(IIOSourceRealTests.samples(batches), imu)
    }
}
