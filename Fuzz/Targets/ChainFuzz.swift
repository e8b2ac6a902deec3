// fuzz-runs-divisor: 8
// (CI budget: ~0.57 ms an input, 250,000 took 142 s of a clean-clone CI run on 2 cores
// (2026-11-29); 125,000 keep the 45-minute run in budget, and the corpus grown from the seeds
// still reaches past them.)
// libFuzzer target: the input is read as a stream of 12-byte commands (IMU sample, fix,
// marker, or a batch boundary), with times that may jump or go backwards and values
// that may be NaN or huge, and fed to the filter chain with crash detection on.
// Built against the core sources by Fuzz/run.sh. A crash or a broken invariant is a finding.

@testable import BikePathCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    var configuration = PipelineConfiguration()
    configuration.crashDetectionEnabled = true
    var pipeline = Pipeline(configuration: configuration)
    var outputs: [ChainOutput] = []
    var batch: [SensorRecord] = []
    var time: Int64 = 0
    var offset = 0
    func float(_ i: Int) -> Float {
        Float(bitPattern: UInt32(input[i]) | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2]) << 16 | UInt32(input[i + 3]) << 24)
    }
    while offset + 12 <= size {
        let kind = input[offset]
        // Mostly forward steps of up to ~65 ms, sometimes a big jump either way.
        let step = Int64(Int16(bitPattern: UInt16(input[offset + 1]) | UInt16(input[offset + 2]) << 8))
        time &+= kind & 0x80 != 0 ? step &* 1_000_000_000 : abs(step) &* 1000
        let t = SampleTime(nanoseconds: time)
        switch kind & 0x7F {
        case 0..<90:
            let z = float(offset + 3)
            let small = Float(Int8(bitPattern: input[offset + 7])) / 8
            batch.append(
                .imu(
                    IMUSample(
                        time: t, accel: Vector3(x: small, y: small / 2, z: z),
                        gyro: kind & 1 == 0 ? Vector3(x: small / 10, y: 0, z: 0) : nil)))
        case 90..<115:
            outputs += pipeline.process(batch); batch.removeAll()
            let lat = Double(Int16(bitPattern: UInt16(input[offset + 3]) | UInt16(input[offset + 4]) << 8)) / 300
            let lon = Double(Int16(bitPattern: UInt16(input[offset + 5]) | UInt16(input[offset + 6]) << 8)) / 150
            let fix = GNSSFix(
                receivedAt: t, time: UTCTime(nanosecondsSince1970: time &+ 1_700_000_000_000_000_000),
                mode: FixMode(rawValue: Int(input[offset + 7] % 4)) ?? .noFix,
                latitude: 45 + lat / 100, longitude: 7 + lon / 100,
                altitudeMSL: Double(float(offset + 8)), speed: Double(input[offset + 9]) / 8,
                hdop: Double(input[offset + 10]) / 10)
            outputs += pipeline.process(fix: fix)
        case 115..<120:
            batch.append(.marker(t, input[offset + 3] & 1 == 0 ? .tripStart : .tripStop))
        default:
            outputs += pipeline.process(batch); batch.removeAll()
        }
        offset += 12
    }
    outputs += pipeline.process(batch)
    outputs += pipeline.finish()
    var started = 0, ended = 0, sos = 0
    for o in outputs {
        switch o {
        case .tripStarted: started += 1
        case .tripEnded(let trip):
            ended += 1
            precondition(!(trip.statistics.movingSeconds > trip.statistics.elapsedSeconds), "moving > elapsed")
        case .sos: sos += 1
        default: break
        }
    }
    precondition(started == ended, "a trip started but never ended")
    return 0
}
