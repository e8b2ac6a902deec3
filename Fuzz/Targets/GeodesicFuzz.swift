// libFuzzer target: the geometry every budget and measure stands on (`Geodesic`: the short
// way in longitude, distance, interpolation), fed positions anywhere on the globe with the
// edges a hostile upload picks made likely: the poles, the antimeridian from either side,
// -0, a step of nothing, a step half the world long. Built against the core sources by
// Fuzz/run.sh. A crash, a sanitizer report or a broken invariant (trap) is a finding.

@testable import BikePathCore

/// Values a byte stream turns into: an edge when the selector byte asks for one, else a
/// share of the range taken from the next 4 bytes.
struct Positions {
    var bytes: UnsafeRawBufferPointer
    var at = 0

    mutating func byte() -> UInt8? {
        guard at < bytes.count else { return nil }
        defer { at += 1 }
        return bytes[at]
    }

    mutating func value(limit: Double) -> Double? {
        guard let selector = byte() else { return nil }
        let edges = [limit, -limit, 0, -0.0, limit - 1e-7, -limit + 1e-7, limit - 1e-4, 1e-9]
        if selector < 64 { return edges[Int(selector) % edges.count] }
        var raw: UInt32 = 0
        for _ in 0..<4 { raw = raw << 8 | UInt32(byte() ?? 0) }
        return (Double(raw) / Double(UInt32.max) * 2 - 1) * limit
    }

    mutating func coordinate() -> Coordinate? {
        guard let lat = value(limit: 90), let lon = value(limit: 180) else { return nil }
        return Coordinate(latitude: lat, longitude: lon)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = Positions(bytes: UnsafeRawBufferPointer(start: data, count: size))
    while let a = input.coordinate(), let b = input.coordinate(), let tByte = input.byte() {
        let delta = Geodesic.longitudeDelta(from: a.longitude, to: b.longitude)
        precondition(delta >= -180 && delta <= 180, "the short way is at most half round: \(delta)")
        precondition(abs(delta) <= abs(b.longitude - a.longitude) + 1e-9, "the short way is never the long way")
        let d = Geodesic.distance(a, b), back = Geodesic.distance(b, a)
        precondition(d.isFinite && d >= 0, "a distance is a finite length: \(d)")
        // Half the equator each way on the plane of the mean latitude, at most: ~28,400 km.
        precondition(d < 30_000_000, "no step is longer than the plane can hold: \(d)")
        precondition(abs(d - back) <= 1e-6 * max(d, 1), "a step measures the same both ways: \(d) \(back)")
        precondition(Geodesic.distance(a, a) == 0, "a step of nothing measures nothing")
        let t = Double(tByte) / 255
        let p = Geodesic.interpolate(a, b, t)
        precondition(p.longitude >= -180 && p.longitude <= 180, "interpolation stays on the globe: \(p)")
        precondition(
            p.latitude >= min(a.latitude, b.latitude) - 1e-9 && p.latitude <= max(a.latitude, b.latitude) + 1e-9,
            "interpolation stays between its ends: \(p)")
        // The share of the way is the share of the short way in longitude.
        let part = Geodesic.longitudeDelta(from: a.longitude, to: p.longitude)
        precondition(abs(part - delta * t) <= 1e-6 || abs(abs(part - delta * t) - 360) <= 1e-6, "interpolation goes the short way")
    }
    return 0
}
