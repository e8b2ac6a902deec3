import Foundation
import BikePathCore

/// A physically modelled crossing of a pothole or a bump by a bicycle, as the handlebar's
/// accelerometer feels it along gravity (docs/evaluation.md, "Injected wheel impacts").
///
/// Each wheel: for a pothole, the wheel drops into the hole (a partial free fall for the
/// hole's length), then hits its far edge (a half-sine as long as the tyre's contact with
/// the edge takes at this speed), then the fork and frame ring (a damped sine of opposite
/// sign). For a bump the hit comes first and the drop after the crest. The rear wheel does
/// the same `wheelbase / speed` later, weaker at the bar.
public struct WheelImpact: Sendable, Equatable {
    public var kind: ObstacleKind
    /// Peak of the front wheel's hit, m/s² (10–26: the range for real hole crossings).
    public var peak: Double
    public var speed: Double
    public var wheelbase: Double
    /// Rear hit over front hit at the bar.
    public var rearRatio: Double
    /// Tyre–edge contact length, m: the hit lasts contact / speed (shorter when faster).
    public var contactLength: Double
    /// Hole or bump length, m: the drop lasts length / speed.
    public var obstacleLength: Double
    /// Downward acceleration while the wheel drops, m/s².
    public var drop: Double
    public var ringHz: Double
    public var ringDamping: Double
    /// Ringing amplitude over the hit's peak.
    public var ringRatio: Double

    /// Creates an impact from its fields (units as documented on each).
    public init(
        kind: ObstacleKind, peak: Double, speed: Double, wheelbase: Double, rearRatio: Double,
        contactLength: Double, obstacleLength: Double, drop: Double, ringHz: Double, ringDamping: Double,
        ringRatio: Double
    ) {
        self.kind = kind
        self.peak = peak
        self.speed = speed
        self.wheelbase = wheelbase
        self.rearRatio = rearRatio
        self.contactLength = contactLength
        self.obstacleLength = obstacleLength
        self.drop = drop
        self.ringHz = ringHz
        self.ringDamping = ringDamping
        self.ringRatio = ringRatio
    }

    /// Draws one crossing at `speed` from the documented ranges.
    public static func draw(speed: Double, using rng: inout SplitMix64) -> WheelImpact {
        func uniform(_ r: ClosedRange<Double>) -> Double { Double.random(in: r, using: &rng) }
        return WheelImpact(
            kind: Bool.random(using: &rng) ? .pothole : .bump, peak: uniform(10...26), speed: speed,
            wheelbase: uniform(0.98...1.12), rearRatio: uniform(0.35...0.8),
            contactLength: uniform(0.08...0.16), obstacleLength: uniform(0.2...0.6),
            drop: uniform(2...5), ringHz: uniform(12...25), ringDamping: uniform(0.08...0.2),
            ringRatio: uniform(0.3...0.5))
    }

    /// Seconds from the front hit to the rear hit.
    public var rearDelay: Double { wheelbase / speed }

    /// Acceleration along "up" at `t` seconds after the front wheel's hit begins.
    public func acceleration(at t: Double) -> Double {
        wheel(t, amplitude: peak) + wheel(t - rearDelay, amplitude: peak * rearRatio)
    }

    /// Whether `t` (relative to the front hit) is inside the crossing's disturbance.
    public var span: ClosedRange<Double> { -obstacleLength / speed...(rearDelay + 1.0) }

    func wheel(_ t: Double, amplitude a: Double) -> Double {
        let hit = contactLength / speed, dropTime = obstacleLength / speed
        let scale = a / peak
        var out = 0.0
        switch kind {
        case .pothole:
            if t >= -dropTime && t < 0 { out -= drop * scale * sin(.pi * (t + dropTime) / dropTime) }
        default:
            if t >= hit && t < hit + dropTime { out -= drop * scale * sin(.pi * (t - hit) / dropTime) }
        }
        if t >= 0 && t < hit { out += a * sin(.pi * t / hit) }
        if t >= hit {
            let s = t - hit, w = 2 * Double.pi * ringHz
            out -= ringRatio * a * exp(-ringDamping * w * s) * sin(w * (1 - ringDamping * ringDamping).squareRoot() * s)
        }
        return out
    }
}
