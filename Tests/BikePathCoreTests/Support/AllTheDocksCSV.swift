import Foundation
@testable import BikePathCore

/// Minimal reader for the AllTheDocks GoPro CSV exports, for evaluation tests only (the
/// product's importer lives in BikePathSensors). GPS columns: Milliseconds, Latitude,
/// Longitude, Altitude, Speed (2D, m/s), Speed3D, TS (UTC µs), GpsAccuracy (DOP × 100,
/// GoPro GPSP), GpsFix (0, 2, 3). IMU columns: Milliseconds, X, Y, Z.
enum AllTheDocksCSV {
    struct BadLine: Error, CustomStringConvertible { var description: String }

    static func rows(_ path: String, columns: Int) throws -> [[Double]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var out: [[Double]] = []
        for (n, line) in text.split(whereSeparator: \.isNewline).enumerated() where n > 0 {
            let fields = line.split(separator: ",").map { Double($0) }
            guard fields.count == columns, fields.allSatisfy({ $0 != nil }) else {
                throw BadLine(description: "\(path):\(n + 1): expected \(columns) numbers")
            }
            out.append(fields.map { $0! })
        }
        return out
    }

    static func fixes(_ path: String) throws -> [GNSSFix] {
        try rows(path, columns: 9).map { r in
            GNSSFix(
                receivedAt: SampleTime(seconds: r[0] / 1000),
                time: UTCTime(nanosecondsSince1970: Int64(r[6]) * 1000),
                mode: r[8] >= 3 ? .threeD : r[8] >= 2 ? .twoD : .noFix,
                latitude: r[1], longitude: r[2], altitudeMSL: r[3], speed: r[4], hdop: r[7] / 100)
        }
    }

    /// Accelerometer and gyro files share their timestamps row by row.
    static func imu(accl: String, gyro: String) throws -> [SensorRecord] {
        let a = try rows(accl, columns: 4), g = try rows(gyro, columns: 4)
        guard a.count == g.count else { throw BadLine(description: "accl/gyro row counts differ") }
        return zip(a, g).map { a, g in
            .imu(
                IMUSample(
                    time: SampleTime(seconds: a[0] / 1000),
                    accel: Vector3(x: Float(a[1]), y: Float(a[2]), z: Float(a[3])),
                    gyro: Vector3(x: Float(g[1]), y: Float(g[2]), z: Float(g[3]))))
        }
    }

    static var rides: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: TestData.allTheDocks)) ?? [])
            .filter { $0.hasSuffix("-gps.csv") }.sorted().map { String($0.dropLast("-gps.csv".count)) }
    }

    /// Sum of the steps between consecutive raw fixes with a position fix.
    static func rawDistance(_ fixes: [GNSSFix]) -> Double {
        var sum = 0.0
        var previous: Coordinate?
        for f in fixes where f.mode >= .twoD {
            if let p = previous, let c = f.coordinate { sum += Geodesic.distance(p, c) }
            previous = f.coordinate
        }
        return sum
    }

    /// Distance from the receiver's Doppler speed integrated over time: independent of
    /// position noise, so a fair reference for what the smoothed track should measure.
    static func dopplerDistance(_ fixes: [GNSSFix]) -> Double {
        var sum = 0.0
        for (a, b) in zip(fixes, fixes.dropFirst()) where a.mode >= .twoD {
            sum += (a.speed ?? 0) * max(0, min(b.receivedAt - a.receivedAt, 1))
        }
        return sum
    }
}
