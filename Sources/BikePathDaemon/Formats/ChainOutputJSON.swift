import BikePathAPI
import BikePathCore
import Foundation

/// One chain output as one line of JSON, in the designed schema of docs/json.md
/// (version `JSONSchema.version`): what `replay --json` prints and `record
/// --outputs` writes, so the two can be compared byte for byte. Sample times are
/// seconds as numbers (`*_s`), UTC is ISO 8601, units are in the key names, and
/// the record's type is always `type`.
public enum ChainOutputJSON {
    /// One chain output as one JSON line (no trailing newline).
    public static func line(_ output: ChainOutput) -> String {
        switch output {
        case .activity(let t, let state):
            return encoded(Activity(type: "activity", time_s: t.seconds, state: state.rawValue))
        case .tripStarted(let t, let utc):
            return encoded(TripStarted(type: "trip_started", time_s: t.seconds, utc: utc.map(iso8601)))
        case .trackPoint(let p):
            return encoded(
                Point(
                    type: "track_point", time_s: p.time.seconds, utc: p.utc.map(iso8601), lat: p.coordinate.latitude,
                    lon: p.coordinate.longitude, alt_m: p.altitudeMSL, speed_mps: p.speed, moving: p.moving))
        case .obstacle(let e):
            return encoded(
                Obstacle(
                    type: "obstacle", time_s: e.time.seconds, utc: e.utc.map(iso8601), lat: e.coordinate?.latitude,
                    lon: e.coordinate?.longitude, speed_mps: e.speed, kind: e.kind.rawValue, peak_mps2: e.peak,
                    energy_m2ps3: e.energy, source: e.source.rawValue, severity: e.severity,
                    confidence: e.confidence, strength: e.strength,
                    window_rate_hz: e.windowRate, window_peak_index: e.windowPeakIndex, window_mps2: e.window))
        case .roadQuality(let s):
            return encoded(
                Road(
                    type: "road_quality", start_time_s: s.startTime.seconds, end_time_s: s.endTime.seconds,
                    start_lat: s.start?.latitude, start_lon: s.start?.longitude, end_lat: s.end?.latitude,
                    end_lon: s.end?.longitude, length_m: s.lengthMeters, roughness: s.roughness, status: s.status.rawValue))
        case .tripEnded(let trip):
            return encoded(
                JSONMerged(
                    head: TripEnded(
                        type: "trip_ended", start_time_s: trip.startTime.seconds, end_time_s: trip.endTime.seconds,
                        start_utc: trip.startUTC.map(iso8601), end_utc: trip.endUTC.map(iso8601),
                        path: trip.path.map { [$0.latitude, $0.longitude] }),
                    tail: TripTotalsJSON(trip.statistics)))
        case .sos(let e):
            return encoded(
                SOS(
                    type: "sos", time_s: e.time.seconds, impact_time_s: e.impactTime.seconds, impact_peak_mps2: e.impactPeak,
                    utc: e.lastFix?.time.map(iso8601), lat: e.lastFix?.latitude, lon: e.lastFix?.longitude,
                    speed_mps: e.lastFix?.speed, window_rate_hz: e.windowRate, window_mps2: e.window))
        }
    }

    // One struct per record type: the keys are the schema (docs/json.md), spelled as they appear.
    private struct Activity: Encodable { var schema = JSONSchema.version; var type: String; var time_s: Double; var state: String }
    private struct TripStarted: Encodable { var schema = JSONSchema.version; var type: String; var time_s: Double; var utc: String? }
    private struct Point: Encodable {
        var schema = JSONSchema.version; var type: String; var time_s: Double; var utc: String?
        var lat: Double; var lon: Double; var alt_m: Double?; var speed_mps: Double; var moving: Bool
    }
    private struct Obstacle: Encodable {
        var schema = JSONSchema.version; var type: String; var time_s: Double; var utc: String?; var lat: Double?; var lon: Double?
        var speed_mps: Double?; var kind: String; var peak_mps2: Double; var energy_m2ps3: Double
        var source: String; var severity: Double; var confidence: Double; var strength: Double
        var window_rate_hz: Double; var window_peak_index: Int?; var window_mps2: [Float]
    }
    private struct Road: Encodable {
        var schema = JSONSchema.version; var type: String; var start_time_s: Double; var end_time_s: Double
        var start_lat: Double?; var start_lon: Double?; var end_lat: Double?; var end_lon: Double?
        var length_m: Double; var roughness: Double; var status: String
    }
    private struct TripEnded: Encodable {
        var schema = JSONSchema.version; var type: String; var start_time_s: Double; var end_time_s: Double
        var start_utc: String?; var end_utc: String?; var path: [[Double]]
    }
    private struct SOS: Encodable {
        var schema = JSONSchema.version; var type: String; var time_s: Double; var impact_time_s: Double; var impact_peak_mps2: Double
        var utc: String?; var lat: Double?; var lon: Double?; var speed_mps: Double?
        var window_rate_hz: Double; var window_mps2: [Float]
    }

    /// Chain outputs carry finite numbers only (the chain rejects non-finite
    /// samples and fixes, and the fuzzers check it): encoding cannot fail.
    private static func encoded<T: Encodable>(_ value: T) -> String { JSONText.line(value) }

    /// `utc` as ISO 8601 UTC (e.g. `2014-12-31T03:07:19.000Z`).
    public static func iso8601(_ utc: UTCTime) -> String {
        var bytes: [UInt8] = []
        FixJSON.appendISO8601(utc, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The version of every JSON document and line bikepathd prints (docs/json.md):
/// raised when a key is removed or changes meaning; added keys keep it.
public enum JSONSchema {
    public static let version = 1
}
