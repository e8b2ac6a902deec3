import BikePathAPI
import BikePathCore
import Foundation

/// A manual path as the hub keeps it (`ManualPathStore`) and answers it: the rider's request,
/// the day it came, and the pieces made of it with their street's name and the ridden part's
/// geometry, so that the same request again is answered as it was the first time, whatever
/// streets were imported since.
public struct StoredManualPath: Sendable, Equatable {
    public var device: String
    public var id: String
    /// The request's canonical body (`CanonicalJSONEncoder`) and its SHA-256: the same body
    /// again is a duplicate, a different one a conflict (`HubStore`'s rule for records).
    public var body: Data
    public var bodySha256: String
    public var status: PathStatus
    /// The UTC day the hub received it (days since 1970-01-01): the day its rating counts on.
    public var day: Int
    public var pieces: [Piece]

    /// One piece as ridden, with its street's name and the points of the part ridden, in
    /// riding order.
    public struct Piece: Sendable, Equatable {
        public var piece: StreetMatch.Piece
        public var name: String?
        public var points: [Coordinate]
        public init(piece: StreetMatch.Piece, name: String?, points: [Coordinate]) {
            (self.piece, self.name, self.points) = (piece, name, points)
        }
    }

    public init(device: String, id: String, body: Data, bodySha256: String, status: PathStatus, day: Int, pieces: [Piece]) {
        (self.device, self.id, self.body, self.bodySha256) = (device, id, body, bodySha256)
        (self.status, self.day, self.pieces) = (status, day, pieces)
    }

    /// `pieces` made on `graph` (`ManualPath.make`), each with its street's name and line.
    static func pieces(_ pieces: [StreetMatch.Piece], on graph: StreetGraph) -> [Piece] {
        let index = Dictionary(uniqueKeysWithValues: graph.edges.enumerated().map { ($1.key, $0) })
        return pieces.compactMap { p in
            guard let edge = index[p.key] else { return nil }
            return Piece(piece: p, name: graph.edges[edge].name, points: graph.line(edge, from: p.fromMeters, to: p.toMeters))
        }
    }

    public var lengthMeters: Double { pieces.reduce(0) { $0 + $1.piece.lengthMeters } }

    /// What the path adds to the streets' evidence as its rider's rating: its pieces counted
    /// as a ride's are (`StreetRides.increments(path:)`).
    var increments: [StreetIncrement] {
        StreetRides.summed(StreetRides.increments(path: pieces.map(\.piece), device: device, day: day, status: status))
    }
}

extension StreetGraph {
    /// The points of `edge` from `from` to `to` metres along it, in that order.
    func line(_ edge: Int, from: Double, to: Double) -> [Coordinate] {
        let (low, high) = (min(from, to), max(from, to))
        let inner = offsets[edge].indices.filter { offsets[edge][$0] > low && offsets[edge][$0] < high }.map { edges[edge].points[$0] }
        let line = [point(edge, at: low)] + inner + [point(edge, at: high)]
        return from <= to ? line : line.reversed()
    }
}

/// `PUT /v1/manual-paths/{id}`'s answer: the path as a GeoJSON Feature, a LineString through
/// its pieces, with its length and the streets it rides, each named once per stretch
/// ("Goswell Road 420 m"), and the data's attribution as a member of its own.
struct ManualPathAnswer: Encodable, Sendable {
    var type = "Feature"
    var attribution = MapEndpoints.osmAttribution
    var geometry: Geometry
    var properties: Properties
    /// Field names the request had that the hub does not keep; absent when none.
    var ignored: [String]?

    struct Properties: Encodable, Sendable {
        var id: String
        var status: String
        var lengthM: Double
        var streets: [Street]
        enum CodingKeys: String, CodingKey { case id, status, lengthM = "length_m", streets }
    }

    /// Consecutive pieces of one street, joined.
    struct Street: Encodable, Sendable, Equatable {
        var name: String?
        var lengthM: Double
        enum CodingKeys: String, CodingKey { case name, lengthM = "length_m" }
        /// Every key written, null where absent: a client reads one shape for every street.
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name)
            try c.encode(ManualPathAnswer.decimetres(lengthM), forKey: .lengthM)
        }
    }

    init(_ path: StoredManualPath, ignored: [String] = []) {
        self.ignored = ignored.isEmpty ? nil : ignored
        var line: [Coordinate] = []
        var streets: [Street] = []
        for p in path.pieces {
            // Each piece starts at the junction the one before ended at (interpolated at each
            // edge's end, so within a centimetre): that point once.
            let joins = zip(line.last.map { [$0] } ?? [], p.points.prefix(1)).contains { Geodesic.distance($0, $1) < 0.01 }
            line += joins ? p.points.dropFirst() : p.points[...]
            if let last = streets.last, last.name == p.name {
                streets[streets.count - 1].lengthM += p.piece.lengthMeters
            } else {
                streets.append(Street(name: p.name, lengthM: p.piece.lengthMeters))
            }
        }
        geometry = .line(line)
        properties = Properties(
            id: path.id, status: path.status.rawValue, lengthM: Self.decimetres(path.lengthMeters), streets: streets)
    }

    static func decimetres(_ meters: Double) -> Double { (meters * 10).rounded() / 10 }

    func encoded() throws -> Data { Data(try CanonicalJSONEncoder.encode(self)) }
}

extension StoredManualPath {
    /// The columns of `manual_path_pieces` a piece is read from, in `piece(…)`'s order.
    static let pieceColumns = "way_id, from_node, to_node, way, from_m, to_m, fraction, name, points"

    /// A stored row that is no manual path: written by something else than the hub.
    public struct CorruptRow: Error, Equatable, CustomStringConvertible {
        public var device: String
        public var id: String
        public var why: String
        public var description: String { "the stored manual path \(id) of \(device) is unreadable: \(why)" }
    }

    /// A piece from its stored columns (`pieceColumns`).
    func piece(
        _ way: Int64, _ from: Int64, _ to: Int64, way direction: String, fromM: Double, toM: Double, fraction: Double, name: String?,
        points text: String
    ) throws(CorruptRow) -> Piece {
        guard let ridden = StreetMatch.Way(rawValue: direction) else { throw CorruptRow(device: device, id: id, why: "way \(direction)") }
        guard let points = StreetEdge.points(text: text) else { throw CorruptRow(device: device, id: id, why: "points \(text.prefix(40))") }
        return Piece(
            piece: StreetMatch.Piece(
                key: StreetEdge.Key(way: way, from: from, to: to), way: ridden, fromMeters: fromM, toMeters: toM, fraction: fraction),
            name: name, points: points)
    }
}

extension StoredManualPath {
    /// The path `request` names, made on `streets` (the streets read around its ends, `ManualPath.box`).
    static func make(
        device: String, id: String, _ request: ManualPathRequest, day: Int, on streets: [StreetEdge]
    ) throws(ManualPathError) -> StoredManualPath {
        let graph = StreetGraph(edges: streets)
        let pieces = try ManualPath.make(from: request.start, to: request.end, streets: request.streets, on: graph)
        return StoredManualPath(
            device: device, id: id, body: request.canonical, bodySha256: request.sha256, status: request.status, day: day,
            pieces: Self.pieces(pieces, on: graph))
    }
}

/// A manual path's request as decoded and checked (`PUT /v1/manual-paths/{id}`): what the hub
/// makes the path of, and the canonical body it keeps.
struct ManualPathRequest: Sendable {
    var streets: [String]
    var start: Coordinate
    var end: Coordinate
    var status: PathStatus
    var canonical: Data
    var sha256: String
    /// Field names the body had that the hub does not keep.
    var ignored: [String]
}
