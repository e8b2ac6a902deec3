import BikePathTestSupport
import BikePathCore
import Foundation
import Testing
@testable import BikePathSensors
#if canImport(Glibc)
    import Glibc
#endif

/// libiio reading the fake 6-axis device through a real iiod serving a private mount namespace.
@Suite("IMU source against libiio and iiod", .serialized, .ownThreads)
struct IIOSourceRealTests {
    static let prerequisites = ["iiod", "unshare", "mount"]

    /// Checks every sample equals the value the feeder wrote, scaled by the tree's
    /// scale and offset; returns the sample counters recovered from anglvel_z.
    static func checkValues(_ samples: [IMUSample], _ imu: FakeIMU) throws -> [Int] {
        let accelScale = try imu.attribute("in_accel_scale")
        let accelOffset = try imu.attribute("in_accel_offset")
        let gyroScale = try imu.attribute("in_anglvel_scale")
        var counters: [Int] = []
        for sample in samples {
            let gyro = try #require(sample.gyro)
            let n = Int((Double(gyro.z) / gyroScale).rounded())
            let raw = FakeIMU.raw(n)
            let accel = raw.accel.map { Float((Double($0) + accelOffset) * accelScale) }
            let expectedGyro = raw.gyro.map { Float(Double($0) * gyroScale) }
            #expect([sample.accel.x, sample.accel.y, sample.accel.z] == accel, "accel of sample \(n)")
            #expect([gyro.x, gyro.y, gyro.z] == expectedGyro, "gyro of sample \(n)")
            counters.append(n)
        }
        return counters
    }

    static func samples(_ batches: Collector<[SensorRecord]>) -> [IMUSample] {
        batches.all.flatMap { $0 }.compactMap { if case .imu(let s) = $0 { s } else { nil } }
    }

    @Test(
        "scaled samples equal the values written; survives the device disappearing and coming back",
        .enabled(
            if: RealDaemons.shouldRun(prerequisites, needsRoot: true),
            "needs root, iiod, unshare and python3 (skipped locally; required on CI)"),
        .timeLimitOnceRunning(.minutes(1)))
    func valuesAndRecovery() async throws {
        guard RealDaemons.check(Self.prerequisites, needsRoot: true) else { return }
        let imu = try FakeIMU()
        try imu.start()
        defer { imu.stop() }
        let source = IIOSource(
            configuration: IIOConfiguration(
                uri: imu.uri, samplingFrequency: 200, timeout: 3, initialBackoff: 0.1, maximumBackoff: 0.5))
        let batches = Collector<[SensorRecord]>()
        source.start {
            batches.append($0); return true
        }
        defer { source.stop() }

        #expect(
            await RealDaemons.wait(timeout: 10) { source.status.samples >= 400 && source.status.measuredRateHz != nil },
            "feeder: \(imu.log("feeder.log"))")
        var status = source.status
        #expect(status.devices.map(\.name) == ["bmi160-fake"])
        #expect(status.devices.first?.channels == ["accel_x", "accel_y", "accel_z", "anglvel_x", "anglvel_y", "anglvel_z", "timestamp"])
        #expect(status.devices.first?.timestampClock == "monotonic")
        #expect(status.configuredRateHz == 200)
        #expect(try imu.attribute("sampling_frequency") == 200, "the source set the device's rate")
        #expect(status.bufferSamples == 10, "rate / 20 refills per second")
        let rate = try #require(status.measuredRateHz)
        #expect(abs(rate - 200) < 2)
        #expect(status.gaps == 0 && status.overruns == 0 && status.readErrors == 0)

        let first = Self.samples(batches)
        let counters = try Self.checkValues(first, imu)
        #expect(counters == Array(counters[0]..<(counters[0] + counters.count)), "no sample lost or repeated")
        let steps = zip(first.dropFirst(), first).map { $0.time.nanoseconds - $1.time.nanoseconds }
        #expect(steps.allSatisfy { $0 == 5_000_000 }, "monotonic device stamps used as they are")
        #expect(first.last!.time <= EdgeClock.monotonic())

        // The device disappears (iiod and feeder killed), then comes back on the same port.
        imu.stop()
        #expect(await RealDaemons.wait(timeout: 10) { !source.status.connected })
        status = source.status
        #expect(status.readErrors + status.timeouts > 0, "the lost device shows in the counters")
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(source.status.connectFailures > 0)
        let before = source.status.samples
        let connectsBefore = source.status.connects
        try imu.start()
        #expect(await RealDaemons.wait(timeout: 10) { source.status.connects > connectsBefore && source.status.samples >= before + 200 })
        let second = Array(Self.samples(batches).dropFirst(before))
        _ = try Self.checkValues(second, imu)
        #expect(second.first!.time > first.last!.time)
    }
}
