import BikePathAPI
import BikePathCore
import BikePathStore
import Foundation

/// Turns what the store holds into wire records, applying the privacy rules on
/// the device: trimming, privacy zones, and only what the contract carries.
public struct UploadBuilder: Sendable {
    public let filter: PrivacyFilter

    /// Creates a builder applying `privacy`.
    public init(privacy: PrivacySettings) { filter = PrivacyFilter(privacy) }

    /// A queued payload that cannot be turned into a wire record (it cannot be read).
    public struct Unbuildable: Error, CustomStringConvertible {
        public var description: String
    }

    /// The record to send for an outbox item. SOS and confirmations are queued by
    /// the store in its own form; trips and drafts are queued by sync already in
    /// wire form (and get the zone rule applied again, in case zones changed).
    public func body(for item: OutboxItem, confirmedSha256: String?) throws -> RecordBody {
        let data = Data(item.payload.utf8)
        do {
            switch item.kind {
            case .sos:
                return .sos(sos(try JSONDecoder().decode(SOSPayload.self, from: data)))
            case .confirmation:
                let doc = try JSONDecoder().decode(DraftDocument.self, from: data)
                return .confirmation(ConfirmationUpload(confirmed: true, confirmedSha256: confirmedSha256, draft: draft(doc)))
            case .draft:
                return .draft(rezone(try WireKeys.decode(DraftUpload.self, from: data)))
            case .trip:
                return .trip(try WireKeys.decode(TripUpload.self, from: data))
            }
        } catch let e as DecodingError {
            throw Unbuildable(description: "the queued \(item.kind.rawValue) payload cannot be read: \(e)")
        }
    }

    func sos(_ s: SOSPayload) -> SOSUpload {
        var position: WirePosition?
        if let lat = s.lat, let lon = s.lon, !filter.isInsideZone(Coordinate(latitude: lat, longitude: lon)) {
            position = WirePosition(lat: Self.round6(lat), lon: Self.round6(lon))
        }
        return SOSUpload(
            id: s.id, timeNs: s.time_ns, impactTimeNs: s.impact_time_ns, impactPeak: s.impact_peak, utcNs: s.utc_ns, position: position)
    }

    /// The trip summary of a draft: times and statistics, no positions.
    public func trip(_ doc: DraftDocument) -> TripUpload {
        let s = doc.trip.statistics
        return TripUpload(
            id: doc.trip.id, startUtcNs: doc.trip.startUTCNanoseconds, endUtcNs: doc.trip.endUTCNanoseconds,
            statistics: TripStatisticsUpload(
                distanceM: s.distanceMeters, elapsedS: s.elapsedSeconds, movingS: s.movingSeconds,
                avgMovingSpeed: s.averageMovingSpeed, maxSpeed: s.maxSpeed,
                elevationGainM: s.elevationGainMeters, co2AvoidedG: s.co2AvoidedGrams))
    }

    /// A draft document as it may leave the device: trimmed path, no zone
    /// positions, dropped and held-back obstacles left out (the rider was not asked
    /// about the latter), the edit history left out.
    public func draft(_ doc: DraftDocument, uploadID: String? = nil) -> DraftUpload {
        let startNs = doc.trip.startTimeNanoseconds
        let duration = doc.trip.endTimeNanoseconds.map { Double($0 - startNs) / 1e9 } ?? doc.trip.statistics.elapsedSeconds
        let window = filter.window(path: doc.path, durationSeconds: duration)
        func offset(_ ns: Int64?) -> Double? { ns.map { Double($0 - startNs) / 1e9 } }
        let obstacles = doc.obstacles.filter { o in
            !o.dropped && !o.heldBack && filter.mayUpload(o.coordinate, secondsSinceStart: offset(o.timeNanoseconds), window: window)
        }.map { o in
            ObstacleUpload(
                id: o.id, kind: o.kind.rawValue, offsetS: offset(o.timeNanoseconds).map(Self.round3),
                position: o.coordinate.map(Self.wire), origin: o.origin)
        }
        let segments = doc.roadQuality.filter { r in
            filter.mayUpload(r.start, secondsSinceStart: offset(r.startTime.nanoseconds), window: window)
                && filter.mayUpload(r.end, secondsSinceStart: offset(r.endTime.nanoseconds), window: window)
        }.map { r in
            RoadSegmentUpload(
                startOffsetS: Self.round3(offset(r.startTime.nanoseconds) ?? 0),
                endOffsetS: Self.round3(offset(r.endTime.nanoseconds) ?? 0),
                start: r.start.map(Self.wire), end: r.end.map(Self.wire), lengthM: Self.round3(r.lengthMeters),
                roughness: Self.round3(r.roughness), status: r.status.rawValue)
        }
        let path = filter.uploadablePath(doc.path, window: window).map { [Self.round6($0.latitude), Self.round6($0.longitude)] }
        return DraftUpload(
            id: uploadID ?? doc.id, trip: trip(doc), pathStatus: doc.pathStatus?.rawValue, path: path,
            obstacles: obstacles, roadQuality: segments)
    }

    /// Applies the zone rule again to a draft queued earlier.
    func rezone(_ d: DraftUpload) -> DraftUpload {
        var d = d
        func out(_ p: WirePosition?) -> Bool { p.map { filter.isInsideZone(Coordinate(latitude: $0.lat, longitude: $0.lon)) } ?? false }
        d.path.removeAll { $0.count == 2 && filter.isInsideZone(Coordinate(latitude: $0[0], longitude: $0[1])) }
        d.obstacles.removeAll { out($0.position) }
        d.roadQuality.removeAll { out($0.start) || out($0.end) }
        return d
    }

    static func wire(_ c: Coordinate) -> WirePosition { WirePosition(lat: round6(c.latitude), lon: round6(c.longitude)) }
    /// 1e-6 degrees is about 0.1 m: finer digits only cost bytes.
    static func round6(_ x: Double) -> Double { (x * 1e6).rounded() / 1e6 }
    static func round3(_ x: Double) -> Double { (x * 1e3).rounded() / 1e3 }
}
