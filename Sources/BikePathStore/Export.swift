import BikePathAPI
import BikePathCore
import Foundation
import GRDB

/// The export formats: GPX 1.1 or GeoJSON.
public enum ExportFormat: String, Sendable, CaseIterable {
    case gpx, geojson
}

/// Totals over all closed trips (`bikepathd stats`).
public struct StoreStatistics: Sendable, Equatable, Codable {
    public var trips: Int
    public var distanceMeters: Double
    public var elapsedSeconds: Double
    public var movingSeconds: Double
    public var co2AvoidedGrams: Double
    public var milestones: [Milestone]
}

extension Store {
    /// Totals over all closed trips, and the milestones reached (`bikepathd stats`).
    /// - Throws: a GRDB `DatabaseError` when the store cannot be read.
    public func statistics() async throws -> StoreStatistics {
        try await pool.read(Self.statistics)
    }

    /// Totals and milestones from one snapshot.
    private static func statistics(_ db: Database) throws -> StoreStatistics {
        let milestones = try milestones(db)
        let r = try Row.fetchOne(
            db,
            sql: """
                SELECT COUNT(*) AS n, COALESCE(SUM(distance_m), 0) AS d, COALESCE(SUM(elapsed_s), 0) AS e,
                       COALESCE(SUM(moving_s), 0) AS m, COALESCE(SUM(co2_avoided_g), 0) AS c
                FROM trips WHERE state = 'closed'
                """)!
        return StoreStatistics(
            trips: r["n"], distanceMeters: r["d"], elapsedSeconds: r["e"], movingSeconds: r["m"],
            co2AvoidedGrams: r["c"], milestones: milestones)
    }

    /// Trip ids, oldest first (for `export` without an id and for tests).
    public func tripIDs() throws -> [String] {
        try pool.read { db in try String.fetchAll(db, sql: "SELECT id FROM trips ORDER BY seq") }
    }

    /// The trip as GPX 1.1 (track + obstacles as waypoints) or GeoJSON. The
    /// obstacles are the draft's edited ones when a draft exists (dropped ones
    /// left out), otherwise the detected candidates.
    public func export(trip id: String, format: ExportFormat) throws -> String {
        try pool.read { db in
            guard let trip = try StoredTrip.find(db, id: id) else { throw StoreError.noSuchTrip(id) }
            let points = try StoredTrackPoint.ofTrip(id).fetchAll(db)
            let obstacles: [Row]
            if let draft = try String.fetchOne(db, sql: "SELECT id FROM drafts WHERE trip_id = ?", arguments: [id]) {
                obstacles = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT o.id, o.kind, o.lat, o.lon, o.time_ns, e.utc_ns FROM draft_obstacles o LEFT JOIN events e ON e.id = o.event_id
                        WHERE o.draft_id = ? AND o.dropped = 0 AND o.lat IS NOT NULL ORDER BY o.time_ns
                        """, arguments: [draft])
            } else {
                obstacles = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT id, obstacle_kind AS kind, lat, lon, time_ns, utc_ns FROM events
                        WHERE trip_id = ? AND kind = 'obstacle' AND lat IS NOT NULL ORDER BY time_ns
                        """, arguments: [id])
            }
            switch format {
            case .gpx: return GPXWriter.document(tripID: id, trip: trip, points: points, obstacles: obstacles)
            case .geojson: return try GeoJSONWriter.document(tripID: id, trip: trip, points: points, obstacles: obstacles)
            }
        }
    }
}

enum GPXWriter {
    static func document(tripID: String, trip: StoredTrip, points: [StoredTrackPoint], obstacles: [Row]) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="bikepathd" xmlns="http://www.topografix.com/GPX/1/1">

            """
        out += "  <metadata><name>\(escape("trip \(tripID)"))</name>"
        if let utc = trip.startUTCNanoseconds { out += "<time>\(isoTime(utc))</time>" }
        out += "</metadata>\n"
        // GPX 1.1 orders metadata, wpt*, rte*, trk*: waypoints come before the track.
        for o in obstacles {
            out += "  <wpt lat=\"\(o["lat"] as Double)\" lon=\"\(o["lon"] as Double)\">"
            if let utc: Int64 = o["utc_ns"] { out += "<time>\(isoTime(utc))</time>" }
            out += "<name>\(escape(o["kind"]))</name><type>obstacle</type></wpt>\n"
        }
        out += "  <trk><name>\(escape("trip \(tripID)"))</name><trkseg>\n"
        for p in points {
            out += "    <trkpt lat=\"\(p.coordinate.latitude)\" lon=\"\(p.coordinate.longitude)\">"
            if let alt = p.altitudeMSL { out += "<ele>\(alt)</ele>" }
            if let utc = p.utcNanoseconds { out += "<time>\(isoTime(utc))</time>" }
            out += "</trkpt>\n"
        }
        out += "  </trkseg></trk>\n</gpx>\n"
        return out
    }

    static func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// xsd:dateTime in UTC with milliseconds, computed without the clock or a formatter.
    static func isoTime(_ ns: Int64) -> String {
        UTCCivilTime(UTCTime(nanosecondsSince1970: ns)).iso8601Milliseconds
    }
}

enum GeoJSONWriter {
    private struct Collection: Encodable {
        var type = "FeatureCollection"
        var features: [Feature]
    }
    private struct Feature: Encodable {
        var type = "Feature"
        var geometry: Geometry
        var properties: [String: String]
    }
    private struct Geometry: Encodable {
        var type: String
        var coordinates: Coordinates
    }
    private enum Coordinates: Encodable {
        case point([Double])
        case line([[Double]])
        func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .point(let p): try c.encode(p)
            case .line(let l): try c.encode(l)
            }
        }
    }

    static func document(tripID: String, trip: StoredTrip, points: [StoredTrackPoint], obstacles: [Row]) throws -> String {
        // GeoJSON (RFC 7946) puts longitude first.
        var features = [
            Feature(
                geometry: Geometry(
                    type: "LineString", coordinates: .line(points.map { [$0.coordinate.longitude, $0.coordinate.latitude] })),
                properties: ["kind": "track", "trip": tripID, "distance_m": "\(trip.statistics.distanceMeters)"])
        ]
        for o in obstacles {
            var props = ["kind": "obstacle", "obstacle": o["kind"] as String, "id": o["id"] as String]
            if let utc: Int64 = o["utc_ns"] { props["time"] = GPXWriter.isoTime(utc) }
            features.append(Feature(geometry: Geometry(type: "Point", coordinates: .point([o["lon"], o["lat"]])), properties: props))
        }
        return try JSONText.document(Collection(features: features)) + "\n"
    }
}
