import BikePathCore
import BikePathSensors
import BikePathFixtures
import BikePathTestSupport
import Foundation

/// Makes `Recordings/simulated-crash-GX010056.bpr`: the real ride, unchanged up to
/// `crashAt` (riding at about 5 m/s there), then a crash in place of what followed —
/// a 50 ms hit of about 5 g, the device turning 90° in half a second, and the bike lying
/// still for the rest of the file, the receiver fixing the same spot at zero speed.
///
/// Real road vibration and real GNSS lead up to the crash, so the detector is tested on
/// what precedes a fall on a bike, not on a clean synthetic signal. The IMU keeps the
/// real sample times; the NMEA sentences keep their times and have position and speed
/// rewritten. Deterministic: the committed file must equal a fresh generation.
enum SimulatedCrashRecording {
    static let source = Paths.root + "/Recordings/allthedocks-GX010056.bpr"
    static let committed = Paths.root + "/Recordings/simulated-crash-GX010056.bpr"
    /// Sample time of the impact, s from the start of the recording.
    static let crashAt = 125.0

    enum Missing: Error { case fixBeforeCrash }

    static func generate(to path: String) throws {
        let (header, records, _) = try RecordingReader.readAll(path: source)
        let impact = SampleTime(seconds: crashAt)
        let before = records.filter { $0.time < impact }
        let after = records.filter { $0.time >= impact }

        let upright = meanAcceleration(before, from: SampleTime(seconds: crashAt - 1))
        let fall = Fall(upright: upright)
        var noise = SplitMix64(state: 0xB1CE_C7A5)
        var lastRMC: [Substring]?, lastGGA: [Substring]?
        for case .nmea(_, let s) in before {
            if s.hasPrefix("$GPRMC") { lastRMC = fields(s) } else if s.hasPrefix("$GPGGA") { lastGGA = fields(s) }
        }
        guard let rmc = lastRMC, let gga = lastGGA else { throw Missing.fixBeforeCrash }

        var crashed: [SensorRecord] = []
        crashed.reserveCapacity(after.count)
        for record in after {
            switch record {
            case .imu(let sample):
                let (accel, gyro) = fall.reading(at: sample.time.seconds - crashAt, noise: &noise)
                crashed.append(.imu(IMUSample(time: sample.time, accel: accel, gyro: gyro)))
            case .nmea(let t, let sentence):
                crashed.append(.nmea(t, standingStill(sentence, rmc: rmc, gga: gga)))
            case .marker, .label:
                crashed.append(record)
            }
        }

        var out = header
        out.sourceDetail =
            "simulated crash at +\(crashAt) s spliced into allthedocks-GX010056.bpr "
            + "(Tests/BikePathSensorsTests/Support/SimulatedCrashRecording.swift)"
        let writer = try RecordingWriter(path: path, header: out, overwrite: true)
        try writer.append(contentsOf: before + crashed)
        try writer.close()
    }

    /// The fall in the sensor frame: gravity `upright` turns by 90° about an axis
    /// across it; the hit is along the third direction.
    struct Fall {
        let upright: Vector3
        let axis: Vector3
        let hit: Vector3
        init(upright: Vector3) {
            self.upright = upright
            axis = normalized(cross(upright, Vector3(x: 0, y: 1, z: 0)))
            hit = normalized(cross(upright, axis))
        }

        func reading(at dt: Double, noise: inout SplitMix64) -> (Vector3, Vector3) {
            func jitter(_ amplitude: Float) -> Float { Float.random(in: -amplitude...amplitude, using: &noise) }
            let turnRate = Float.pi / 2 / 0.5  // 90° in 0.5 s
            switch dt {
            case ..<0.05:  // the hit
                return (upright + hit * 48, axis * 2)
            case ..<0.55:  // falling over: dg/dt = −ω × g
                let g = rotate(upright, about: axis, by: turnRate * Float(dt - 0.05))
                return (g + Vector3(x: jitter(0.3), y: jitter(0.3), z: jitter(0.3)), axis * -turnRate)
            default:  // lying still
                let g = rotate(upright, about: axis, by: .pi / 2)
                return (
                    g + Vector3(x: jitter(0.03), y: jitter(0.03), z: jitter(0.03)),
                    Vector3(x: jitter(0.005), y: jitter(0.005), z: jitter(0.005))
                )
            }
        }
    }

    static func meanAcceleration(_ records: [SensorRecord], from start: SampleTime) -> Vector3 {
        var sum = Vector3(x: 0, y: 0, z: 0), n: Float = 0
        for case .imu(let s) in records where s.time >= start {
            sum = sum + s.accel
            n += 1
        }
        return sum * (1 / max(n, 1))
    }

    /// The same sentence with the last position before the crash and zero speed.
    static func standingStill(_ sentence: String, rmc: [Substring], gga: [Substring]) -> String {
        var f = fields(sentence)
        if f.first == "GPRMC", f.count > 7 {
            f.replaceSubrange(3...6, with: rmc[3...6])
            f[7] = "0.00"
        } else if f.first == "GPGGA", f.count > 5 {
            f.replaceSubrange(2...5, with: gga[2...5])
        }
        return NMEAWriter.sentence(body: f.joined(separator: ","))
    }

    /// Fields of a sentence between `$` and `*`.
    static func fields(_ sentence: String) -> [Substring] {
        let body = sentence.dropFirst().prefix { $0 != "*" }
        return body.split(separator: ",", omittingEmptySubsequences: false)
    }
}

private func cross(_ a: Vector3, _ b: Vector3) -> Vector3 {
    Vector3(x: a.y * b.z - a.z * b.y, y: a.z * b.x - a.x * b.z, z: a.x * b.y - a.y * b.x)
}

private func normalized(_ v: Vector3) -> Vector3 {
    v * (1 / (v.x * v.x + v.y * v.y + v.z * v.z).squareRoot())
}

/// Rodrigues: `v` turned by `angle` about the unit vector `k`.
private func rotate(_ v: Vector3, about k: Vector3, by angle: Float) -> Vector3 {
    let c = cos(angle), s = sin(angle)
    let dot = k.x * v.x + k.y * v.y + k.z * v.z
    return v * c + cross(k, v) * s + k * (dot * (1 - c))
}

private extension Vector3 {
    static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z) }
    static func * (a: Vector3, k: Float) -> Vector3 { Vector3(x: a.x * k, y: a.y * k, z: a.z * k) }
}
