import BikePathCore
import Foundation

/// Where the stored network stands: the last queued confirmation it holds (its arrival
/// sequence number) and the id its next node takes.
public struct NetworkCursor: Sendable, Equatable {
    public var applied: Int64
    public var nextNode: Int64
    public init(applied: Int64, nextNode: Int64) { (self.applied, self.nextNode) = (applied, nextNode) }
}

/// A confirmation waiting for the network, by arrival sequence number.
public struct QueuedRide: Sendable {
    public var sequence: Int64
    public var id: String
    public var record: ConfirmedRecord
    public init(sequence: Int64, id: String, record: ConfirmedRecord) { (self.sequence, self.id, self.record) = (sequence, id, record) }
    public var key: ConfirmationKey { ConfirmationKey(device: record.device, id: id) }
}

/// What adding the queued confirmations after `from.applied` up to `appliedTo` did to the
/// network: new nodes, each link's added evidence and each street edge's. Committed only if the stored
/// cursor is still `from` (another replica may have applied them meanwhile).
public struct NetworkChange: Sendable {
    public var from: NetworkCursor
    public var to: NetworkCursor
    public var nodes: [NetworkNode]
    public var links: [LinkIncrement]
    /// The street evidence the same rides add (`StreetRides`), one per edge and way: committed
    /// with the links, so a ride's evidence is added once, whichever replica commits it.
    public var streets: [StreetIncrement]
    /// Whether the rides were matched against imported streets: false while a store has
    /// none, and the rides wait to be matched once streets are imported (`unmatchedRides`).
    public var streetsMatched: Bool

    /// One link's added evidence, with its ends' positions (its geometry).
    public struct LinkIncrement: Sendable {
        public var key: LinkKey
        public var from: Coordinate
        public var to: Coordinate
        public var evidence: LinkEvidence
        public var lengthMeters: Double { Geodesic.distance(from, to) }
        public var tile: MapGrid.Cell {
            MapTiles.grid.cell(of: Coordinate(latitude: (from.latitude + to.latitude) / 2, longitude: (from.longitude + to.longitude) / 2))
        }
    }

    /// The change `network` (made from the stored nodes near the rides, then given the
    /// rides) holds relative to `cursor`.
    public init(
        network: PathNetwork, from cursor: NetworkCursor, appliedTo: Int64, streets: [StreetIncrement] = [], streetsMatched: Bool = false
    ) {
        from = cursor
        self.streets = StreetRides.summed(streets)
        self.streetsMatched = streetsMatched
        to = NetworkCursor(applied: appliedTo, nextNode: network.nextNode)
        nodes = network.newNodes(since: cursor.nextNode)
        links = network.links.keys.sorted().map { key in
            LinkIncrement(key: key, from: network.nodes[key.from]!, to: network.nodes[key.to]!, evidence: network.links[key]!)
        }
    }
}

/// A backlog ride marked matched by another commit first (`commitStreetMatches`): rolls its transaction back.
struct StreetBacklogRace: Error {}
