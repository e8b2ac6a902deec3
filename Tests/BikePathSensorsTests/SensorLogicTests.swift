import BikePathTestSupport
import BikePathCore
import Testing
@testable import BikePathSensors

@Suite("Sensor source logic without daemons", .ownThreads)
struct SensorLogicTests {
    @Test("scan element decoding: sign extension, shift, big endian")
    func scanFormat() {
        let s12 = IIOScanFormat(storageBits: 16, bits: 12, shift: 4, isSigned: true, isBigEndian: false)
        // -5 in 12 bits, shifted left by 4, stored little endian: 0xFFB0
        let bytes: [UInt8] = [0xB0, 0xFF]
        #expect(bytes.withUnsafeBytes { s12.value(at: $0.baseAddress!) } == -5)
        let u16be = IIOScanFormat(storageBits: 16, bits: 16, shift: 0, isSigned: false, isBigEndian: true)
        #expect([UInt8]([0x12, 0x34]).withUnsafeBytes { u16be.value(at: $0.baseAddress!) } == 0x1234)
        let s64 = IIOScanFormat(storageBits: 64, bits: 64, shift: 0, isSigned: true, isBigEndian: false)
        let ts: Int64 = 1_717_243_200_123_456_789
        #expect(withUnsafeBytes(of: ts.littleEndian) { s64.value(at: $0.baseAddress!) } == ts)
        #expect(s12.unsupportedReason == nil)
        #expect(IIOScanFormat(storageBits: 24, bits: 24, shift: 0, isSigned: true, isBigEndian: false).unsupportedReason != nil)
        #expect(IIOScanFormat(storageBits: 16, bits: 16, shift: 2, isSigned: true, isBigEndian: false).unsupportedReason != nil)
        #expect(
            IIOScanFormat(storageBits: 16, bits: 16, shift: 0, isSigned: true, isBigEndian: false, repeatCount: 2).unsupportedReason != nil)
        #expect(s12.description == "le:s12/16>>4")
    }

    @Test("scaling is (raw + offset) × scale")
    func scaling() {
        #expect(IIOScaling(scale: 0.5, offset: 10).apply(-4) == 3)
    }

    @Test("timestamp mapping: monotonic as is, realtime shifted, implausible anchored")
    func timestampMapping() {
        let edge = (monotonic: Int64(100_000_000_000), realtime: Int64(1_800_000_000_000_000_000))
        var mono = IIOTimestampMapper(clock: .monotonic)
        #expect(mono.offset(newest: edge.monotonic - 1_000_000, edge: edge) == 0)
        var real = IIOTimestampMapper(clock: .realtime)
        #expect(real.offset(newest: edge.realtime - 2_000_000, edge: edge) == edge.monotonic - edge.realtime)
        // A realtime stamp from a device whose clock is two years off: anchored at arrival.
        var wrong = IIOTimestampMapper(clock: .realtime)
        let old = edge.realtime - 63_000_000_000_000_000
        #expect(wrong.offset(newest: old, edge: edge) == edge.monotonic - old)
        // The anchor holds while stamps stay plausible, and is re-taken (counted) when not.
        let later = (monotonic: edge.monotonic + 50_000_000, realtime: edge.realtime + 50_000_000)
        #expect(wrong.offset(newest: old + 45_000_000, edge: later) == edge.monotonic - old)
        let jumped = (monotonic: edge.monotonic + 100_000_000, realtime: edge.realtime + 100_000_000)
        #expect(wrong.offset(newest: old + 60_000_000_000, edge: jumped) == jumped.monotonic - (old + 60_000_000_000))
        #expect(wrong.reanchors == 1)
    }

    @Test("rate meter: measured rate and gaps from timestamps")
    func rateMeter() {
        var meter = SampleRateMeter(nominalRate: 100)
        for k in 0..<150 { meter.add(Int64(k) * 10_000_000) }
        #expect(meter.measuredRateHz == 100)
        #expect(meter.gaps == 0)
        meter.add(149 * 10_000_000 + 50_000_000)  // four samples missing
        #expect(meter.gaps == 1)
        #expect(meter.missingSamples == 4)
    }

    @Test("backoff doubles to its ceiling and resets")
    func backoff() {
        var b = Backoff(baseSeconds: 0.25, capSeconds: 1)
        #expect([b.next(), b.next(), b.next(), b.next()] == [0.25, 0.5, 1, 1])
        b.reset()
        #expect(b.next() == 0.25)
    }

    @Test("GNSS time counts only from a 3D fix after the rollover floor")
    func plausibility() {
        let check = GNSSTimePlausibility()
        let june2024 = UTCTime(nanosecondsSince1970: 1_717_243_200 * 1_000_000_000)
        let rolledOver = UTCTime(nanosecondsSince1970: (1_717_243_200 - 1024 * 7 * 86_400) * 1_000_000_000)
        #expect(check.isPlausible(mode: .threeD, time: june2024))
        #expect(!check.isPlausible(mode: .twoD, time: june2024))
        #expect(!check.isPlausible(mode: .threeD, time: rolledOver))
        #expect(!check.isPlausible(mode: .threeD, time: nil))
    }

    @Test("a separate gyro device is paired by nearest time")
    func pairing() {
        let g = [Vector3(x: 1, y: 0, z: 0), Vector3(x: 2, y: 0, z: 0), Vector3(x: 3, y: 0, z: 0)]
        let paired = pairNearest(accelTimes: [0, 9, 21, 40], gyroTimes: [1, 10, 20], gyro: g)
        #expect(paired.map { $0?.x } == [1, 2, 3, 3])
        #expect(pairNearest(accelTimes: [1], gyroTimes: [], gyro: []) == [nil])
    }

    @Test("buffer size follows the rate")
    func bufferSize() {
        #expect(IIOConfiguration(samplingFrequency: 1000).bufferSamples(rate: 1000) == 50)
        #expect(IIOConfiguration().bufferSamples(rate: 10) == 1)
    }
}

@Suite("Source lifecycle without daemons", .ownThreads)
struct SourceLifecycleTests {
    @Test(
        "streams finish when the sources stop, and connection failures are counted meanwhile",
        .timeLimitOnceRunning(.minutes(1)))
    func streamsFinish() async {
        let gnss = GPSDSource(
            configuration: GPSDConfiguration(
                host: "127.0.0.1", port: RealDaemons.freePort(),
                initialBackoff: 0.05, maximumBackoff: 0.1))
        let imu = IIOSource(
            configuration: IIOConfiguration(
                uri: "ip:127.0.0.1:\(RealDaemons.freePort())",
                initialBackoff: 0.05, maximumBackoff: 0.1))
        let events = gnss.events()
        let batches = imu.batches()
        #expect(await RealDaemons.wait(timeout: 10) { gnss.status.connectFailures >= 2 && imu.status.connectFailures >= 2 })
        gnss.stop()
        imu.stop()
        var eventCount = 0
        for await _ in events { eventCount += 1 }
        var batchCount = 0
        for await _ in batches { batchCount += 1 }
        #expect(eventCount == 0 && batchCount == 0, "nothing was delivered, and both loops ended")
        #expect(gnss.status.lastError?.contains("cannot connect to gpsd") == true)
        #expect(imu.status.lastError?.contains("cannot open IIO context") == true)
    }
}
