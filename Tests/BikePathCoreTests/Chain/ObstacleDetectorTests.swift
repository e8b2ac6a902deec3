import Foundation
import Testing
@testable import BikePathCore

/// The detector on synthetic vertical acceleration with known obstacles.
struct ObstacleDetectorTests {
    /// Deterministic road texture: uniform noise of the given amplitude around gravity.
    static func road(seconds: Double, rate: Double, amplitude: Float, seed: UInt64 = 42) -> [Float] {
        var state = seed
        return (0..<Int(seconds * rate)).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return 9.81 + amplitude * (Float(state >> 40) / Float(1 << 24) * 2 - 1)
        }
    }

    /// A wheel dropping into a hole: down first, then the hit on the far edge.
    static func addPothole(_ s: inout [Float], at t: Double, rate: Double, depth: Float = 8) {
        let i = Int(t * rate)
        for k in 0..<Int(0.04 * rate) { s[i + k] -= depth * 0.6 }
        for k in 0..<Int(0.04 * rate) { s[i + Int(0.04 * rate) + k] += depth }
    }

    static func addBump(_ s: inout [Float], at t: Double, rate: Double, height: Float = 8) {
        let i = Int(t * rate)
        for k in 0..<Int(0.05 * rate) { s[i + k] += height }
        for k in 0..<Int(0.04 * rate) { s[i + Int(0.05 * rate) + k] -= height * 0.5 }
    }

    @Test func quietRoadHasNoEvents() {
        #expect(ObstacleDetector.detect(verticalAcceleration: Self.road(seconds: 20, rate: 100, amplitude: 0.3), rate: 100).isEmpty)
    }

    @Test func gravityOffsetAtTheStartIsNotAnEvent() {
        #expect(ObstacleDetector.detect(verticalAcceleration: [Float](repeating: 9.81, count: 500), rate: 50).isEmpty)
    }

    @Test func potholeAndBumpAreFoundAtTheirTimeWithTheirKind() {
        let rate = 100.0
        var s = Self.road(seconds: 10, rate: rate, amplitude: 0.3)
        Self.addPothole(&s, at: 3, rate: rate)
        Self.addBump(&s, at: 7, rate: rate)
        let events = ObstacleDetector.detect(verticalAcceleration: s, rate: rate)
        #expect(events.count == 2)
        #expect(events.first?.kind == .pothole && abs((events.first?.time.seconds ?? 0) - 3.05) < 0.1)
        #expect(events.last?.kind == .bump && abs((events.last?.time.seconds ?? 0) - 7.0) < 0.1)
        #expect(events.allSatisfy { $0.peak > 3 && $0.energy > 0 && !$0.window.isEmpty && $0.windowRate == rate })
    }

    @Test func aRoughPatchIsOneIrregularity() {
        let rate = 100.0
        var s = Self.road(seconds: 12, rate: rate, amplitude: 0.3)
        // 1 s of cobbles: 6 Hz swings of ±5 m/s².
        for i in 500..<600 { s[i] += 5 * (i / 8 % 2 == 0 ? 1 : -1) }
        let events = ObstacleDetector.detect(verticalAcceleration: s, rate: rate)
        #expect(events.count == 1)
        #expect(events.first?.kind == .irregularity)
    }

    @Test func degenerateInputGivesNothing() {
        #expect(ObstacleDetector.detect(verticalAcceleration: [], rate: 50).isEmpty)
        #expect(ObstacleDetector.detect(verticalAcceleration: [9.8, 9.8], rate: 0).isEmpty)
        #expect(ObstacleDetector.detect(verticalAcceleration: [.nan, .infinity, 9.8], rate: 50).count <= 1)
    }

    @Test func aShortHitKeepsItsPeakInTheBicycleObstacleBand() throws {
        // A tyre hitting an edge at 6.8 m/s with 8 cm of contact lasts 12 ms: three samples at
        // 200 Hz. The obstacle band must not take a quarter off it (the former "80 Hz"
        // one-pole acted as 40 Hz at 200 Hz and measured 0.68 of the largest sample).
        let rate = 200.0
        var series = Self.road(seconds: 10, rate: rate, amplitude: 0)
        let start = Int(8 * rate)
        var largest: Float = 0
        for k in 0..<3 {
            let v = 12 * Float(sin(Double.pi * Double(k) / rate / 0.012))
            series[start + k] += v
            largest = max(largest, v)
        }
        let event = try #require(ObstacleDetector.detect(verticalAcceleration: series, rate: rate, configuration: .bicycle).first)
        #expect(Float(event.peak) >= 0.9 * largest, "\(event.peak) of \(largest)")
    }

    @Test func aRougherRoadRaisesTheThreshold() {
        // The same 4 m/s² hit stands out on smooth asphalt but not on a road that
        // already shakes by ±6 m/s² (the threshold is in units of the road's own noise).
        let rate = 100.0
        var smooth = Self.road(seconds: 20, rate: rate, amplitude: 0.3)
        var rough = Self.road(seconds: 20, rate: rate, amplitude: 6)
        Self.addBump(&smooth, at: 15, rate: rate, height: 4)
        Self.addBump(&rough, at: 15, rate: rate, height: 4)
        var config = ObstacleDetectorConfiguration.bicycle
        config.minimumPeak = 1
        #expect(ObstacleDetector.detect(verticalAcceleration: smooth, rate: rate, configuration: config).count == 1)
        #expect(
            ObstacleDetector.detect(verticalAcceleration: rough, rate: rate, configuration: config).allSatisfy {
                $0.time.seconds < 14 || $0.time.seconds > 16
            })
    }
}
