import BikePathCore
import Testing
@testable import BikePathSensors

@Suite("diagnose: problems and required sensors", .ownThreads)
struct DiagnosisTests {
    static func healthyGNSS() -> GNSSStatus {
        var g = GNSSStatus(host: "localhost", port: 2947)
        g.connects = 1
        g.connected = true
        g.gpsdVersion = "3.22"
        g.devices = ["/dev/ttyAMA0"]
        g.fixMode = .threeD
        g.epochs = 10
        g.satellitesUsed = 8
        g.hdop = 0.9
        g.clockOffsetSeconds = 0.02
        g.lastFixReceivedAt = SampleTime(seconds: 99.5)
        return g
    }

    static func healthyIMU() -> IMUStatus {
        var i = IMUStatus(uri: "local:", requestedRateHz: 100)
        i.connects = 1
        i.samples = 300
        i.configuredRateHz = 100
        i.measuredRateHz = 99.9
        i.devices = [IMUDeviceInfo(id: "iio:device0", name: "bmi160", channels: ["accel_x"])]
        return i
    }

    @Test("healthy sensors: no problems, exit ok")
    func healthy() {
        let d = SensorDiagnosis(
            gnss: Self.healthyGNSS(), imu: Self.healthyIMU(), required: [.gnss, .imu],
            observedSeconds: 3, now: SampleTime(seconds: 100))
        #expect(d.problems.isEmpty)
        #expect(d.ok)
        #expect(d.gnssFixAgeSeconds == 0.5)
        #expect(d.text.contains("fix:        3D, 8 satellites used"))
    }

    @Test("missing gpsd fails only when GNSS is required")
    func missingGNSS() {
        let down = GNSSStatus(host: "localhost", port: 2947)
        let optional = SensorDiagnosis(
            gnss: down, imu: Self.healthyIMU(), required: [.imu], observedSeconds: 3, now: SampleTime(seconds: 1))
        #expect(optional.ok)
        #expect(optional.problems.map(\.severity) == [.error])
        let required = SensorDiagnosis(
            gnss: down, imu: Self.healthyIMU(), required: [.gnss], observedSeconds: 3, now: SampleTime(seconds: 1))
        #expect(!required.ok)
        #expect(required.missingRequired == [.gnss])
        #expect(required.text.contains("MISSING required sensor(s): gnss"))
    }

    @Test("each counter that went up becomes one problem line")
    func counters() {
        var g = Self.healthyGNSS()
        g.protocolErrors = 3
        g.clockOffsetSeconds = -75_000_000
        g.implausibleFixTimes = 2
        var i = Self.healthyIMU()
        i.gaps = 2
        i.missingSamples = 40
        i.timeouts = 1
        i.unsupportedFormats = 1
        i.unknownChannels = 1
        i.measuredRateHz = 80
        let d = SensorDiagnosis(gnss: g, imu: i, required: [], observedSeconds: 3, now: SampleTime(seconds: 100))
        let text = d.problems.map(\.problem)
        #expect(text.contains("gpsd sent 3 lines that are neither JSON nor NMEA"))
        #expect(text.contains("system clock differs from GNSS time by -75000000 s"))
        #expect(text.contains("2 3D fixes carried an implausible time (GPS week rollover?)"))
        #expect(text.contains("2 gaps in the sample stream (40 samples missing)"))
        #expect(text.contains("1 read timeouts, 0 short reads, 0 read errors"))
        #expect(text.contains("1 scan elements have a layout this build cannot decode"))
        #expect(text.contains("1 scan elements of a type libiio does not know were ignored"))
        #expect(text.contains("measured rate 80 Hz differs from configured 100 Hz"))
        #expect(d.problems.allSatisfy { !$0.tryThis.isEmpty })
    }
}
