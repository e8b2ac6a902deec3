import Foundation
import Synchronization

/// The wire's keys before issue 38 (commit 205cd25), and the decoding that still reads them.
///
/// Until then the v1 wire was camelCase (`maxSpeed`, `roadQuality`, `confirmedSha256`). JSON in
/// those names is still held where it cannot simply be sent again: a device's outbox (its
/// payloads are linked into the hash chain, so they are never rewritten), a hub's stored
/// bodies until `v8-snake-case-bodies` re-encodes them, and devices not yet upgraded. So every
/// decoding of wire JSON reads both names (`WireKeys.decode`) and every encoding writes only
/// the snake_case ones (each type's `CodingKeys`). Read until v2 of the API (docs/json.md).
public enum WireKeys {
    /// Each pre-release key and the key that replaced it: the one place that knows the old
    /// names (the hub's migration, the decoder and `JSONShape`'s duplicate check read it).
    /// An old name maps to one new name wherever it appears, as the rename was made.
    public static let renamed: [String: String] = [
        // SOSUpload (`utcNs` also LivePositionUpload)
        "timeNs": "time_ns", "impactTimeNs": "impact_time_ns", "impactPeak": "impact_peak_mps2", "utcNs": "utc_ns",
        // TripStatisticsUpload
        "distanceM": "distance_m", "elapsedS": "elapsed_s", "movingS": "moving_s", "avgMovingSpeed": "avg_moving_speed_mps",
        "maxSpeed": "max_speed_mps", "elevationGainM": "elevation_gain_m", "co2AvoidedG": "co2_avoided_g",
        // TripUpload
        "startUtcNs": "start_utc_ns", "endUtcNs": "end_utc_ns",
        // ObstacleUpload, RoadSegmentUpload
        "offsetS": "offset_s", "startOffsetS": "start_offset_s", "endOffsetS": "end_offset_s", "lengthM": "length_m",
        // DraftUpload, ConfirmationUpload
        "pathStatus": "path_status", "roadQuality": "road_quality", "confirmedSha256": "confirmed_sha256",
        // LivePositionUpload: the unit was added, the case was already right
        "speed": "speed_mps",
        // RecordResult (an old hub's answer, read by a device)
        "storedSha256": "stored_sha256", "receivedSha256": "received_sha256",
    ]

    /// `renamed` as bytes, for `JSONShape`'s scan (which compares keys as UTF-8).
    static let renamedBytes: [[UInt8]: [UInt8]] = Dictionary(
        uniqueKeysWithValues: renamed.map { (Array($0.key.utf8), Array($0.value.utf8)) })

    /// Decodes wire JSON written in today's names, the pre-release ones, or both in
    /// different objects. An object holding a key under both names is refused, as
    /// `JSONShape` refuses a key twice: which one would win is not the decoder's to say.
    /// - Throws: `DecodingError`, `.dataCorrupted` for a key under both its names.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(DecodingError) -> T {
        let sawOldName = Flag()
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in
            // The key being read is the path's last (never empty). Only the table's keys are
            // renamed; every other key as it is.
            let key = path[path.count - 1]
            guard let new = renamed[key.stringValue] else { return key }
            sawOldName.value.store(true, ordering: .relaxed)
            return WireKey(new)
        }
        let value: T
        do {
            value = try decoder.decode(type, from: data)
        } catch let e as DecodingError {
            throw e
        } catch {
            throw .dataCorrupted(.init(codingPath: [], debugDescription: "\(error)", underlyingError: error))
        }
        // Only a document with an old name can hold a key under both: today's bodies are not scanned again.
        if sawOldName.value.load(ordering: .relaxed) {
            do {
                try JSONShape.check(data, limits: JSONLimits(maxValues: .max, maxDepth: 64))
            } catch .duplicateKey(let k) {
                throw .dataCorrupted(.init(codingPath: [], debugDescription: JSONShapeProblem.duplicateKey(k).description))
            } catch {
                // Limits are the caller's to apply (the hub applied its own before decoding).
            }
        }
        return value
    }

    private final class Flag: Sendable {
        let value = Atomic(false)
    }

    private struct WireKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
