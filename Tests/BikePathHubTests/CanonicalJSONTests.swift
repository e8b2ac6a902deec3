import BikePathTestSupport
import BikePathAPI
import BikePathCore
import Foundation
import Testing

/// `CanonicalJSONEncoder` (what the hub stores) gives exactly `WireJSON.encode`'s bytes
/// (Foundation's `JSONEncoder`, sorted keys, canonical zeros) for every record type,
/// over seeded random records: awkward numbers, strings with every control character,
/// absent optionals.
@Suite(.ownThreads) struct CanonicalJSONTests {
    /// Seeded: the same records on every run.
    typealias Seeded = SplitMix64

    static func number(_ g: inout Seeded) -> Double {
        switch g.next() % 8 {
        case 0:
            return [0, -0.0, 1, -1, 0.1, 1e16, 1e17, 1e-5, 1e-7, 1e300, .leastNonzeroMagnitude, 123_456_789_012_345_680][Int(g.next() % 12)]
        case 1: return Double(Int64(bitPattern: g.next()) % 1_000_000_000) / 1e7  // a coordinate's digits
        case 2: let d = Double(bitPattern: g.next()); return d.isFinite ? d : 2.5
        default: return Double.random(in: -1_000...1_000, using: &g)
        }
    }

    static func text(_ g: inout Seeded) -> String {
        let pool: [Character] = Array("aZ09-_/\\\"é€😀 \u{7F}\u{2028}") + (UInt8(0)..<0x20).map { Character(Unicode.Scalar($0)) }
        return String((0..<Int(g.next() % 12)).map { _ in pool[Int(g.next() % UInt64(pool.count))] })
    }

    static func position(_ g: inout Seeded) -> WirePosition? {
        g.next() % 4 == 0 ? nil : WirePosition(lat: number(&g), lon: number(&g))
    }

    static func record(_ g: inout Seeded) -> RecordBody {
        let stats = TripStatisticsUpload(
            distanceM: number(&g), elapsedS: number(&g), movingS: number(&g), avgMovingSpeed: number(&g),
            maxSpeed: number(&g), elevationGainM: number(&g), co2AvoidedG: number(&g))
        let trip = TripUpload(
            id: text(&g), startUtcNs: g.next() % 3 == 0 ? nil : Int64(bitPattern: g.next()),
            endUtcNs: Int64(bitPattern: g.next()), statistics: stats)
        let draft = DraftUpload(
            id: text(&g), trip: trip, pathStatus: g.next() % 2 == 0 ? nil : text(&g),
            path: (0..<Int(g.next() % 20)).map { _ in [number(&g), number(&g)] },
            obstacles: (0..<Int(g.next() % 3)).map { _ in
                ObstacleUpload(
                    id: text(&g), kind: text(&g), offsetS: g.next() % 2 == 0 ? nil : number(&g), position: position(&g), origin: text(&g))
            },
            roadQuality: (0..<Int(g.next() % 3)).map { _ in
                RoadSegmentUpload(
                    startOffsetS: number(&g), endOffsetS: number(&g), start: position(&g), end: position(&g), lengthM: number(&g),
                    roughness: number(&g), status: text(&g))
            })
        switch g.next() % 4 {
        case 0: return .trip(trip)
        case 1: return .draft(draft)
        case 2:
            return .confirmation(
                ConfirmationUpload(confirmed: g.next() % 2 == 0, confirmedSha256: g.next() % 2 == 0 ? nil : text(&g), draft: draft))
        default:
            return .sos(
                SOSUpload(
                    id: text(&g), timeNs: Int64(bitPattern: g.next()), impactTimeNs: Int64(bitPattern: g.next()),
                    impactPeak: number(&g), utcNs: g.next() % 2 == 0 ? nil : Int64(bitPattern: g.next()), position: position(&g)))
        }
    }

    static func reference(_ body: RecordBody) throws -> Data {
        switch body {
        case .sos(let v): try WireJSON.encode(v)
        case .confirmation(let v): try WireJSON.encode(v)
        case .draft(let v): try WireJSON.encode(v)
        case .trip(let v): try WireJSON.encode(v)
        }
    }

    @Test func recordsEncodeToTheBytesOfJSONEncoder() throws {
        var g = Seeded(state: 15)
        for i in 0..<2_000 {
            let body = Self.record(&g)
            let fast = try body.canonicalJSON(), slow = try Self.reference(body)
            #expect(fast == slow, "record \(i): \(String(decoding: fast, as: UTF8.self)) vs \(String(decoding: slow, as: UTF8.self))")
            if fast != slow { return }
        }
    }

    @Test func aBatchAndNestedContainersEncodeAsJSONEncoderDoes() throws {
        var g = Seeded(state: 7)
        let batch = BatchRequest(
            records: (0..<20).map { _ in
                let b = Self.record(&g); return .init(id: b.id, body: b)
            })
        #expect(Data(try CanonicalJSONEncoder.encode(batch)) == (try WireJSON.encode(batch)))
        let nested: [String: [[String: Int32]]] = ["b": [["y": -3, "x": 4]], "a": [], "A": [[:]]]
        #expect(Data(try CanonicalJSONEncoder.encode(nested)) == (try WireJSON.encode(nested)))
    }

    @Test func numbersThatJSONCannotHoldAreRefused() {
        #expect(throws: EncodingError.self) { try CanonicalJSONEncoder.encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try CanonicalJSONEncoder.encode(WirePosition(lat: .infinity, lon: 0)) }
    }
}
