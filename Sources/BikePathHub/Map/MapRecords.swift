import BikePathAPI
import Foundation

/// A confirmed draft as the shared map reads it: whose it is and its canonical body.
public struct ConfirmedRecord: Sendable {
    public var device: String
    public var body: Data

    public init(device: String, body: Data) {
        self.device = device
        self.body = body
    }
}

/// A confirmation record the tile index has not seen.
public struct IndexableConfirmation: Sendable {
    public var device: String
    public var id: String
    public var body: Data
    /// `body` decoded, when the upload that stored it had decoded it: the map does not
    /// decode it again (docs/performance.md, "Each confirmation decoded once").
    public var upload: ConfirmationUpload?

    public init(device: String, id: String, body: Data, upload: ConfirmationUpload? = nil) {
        (self.device, self.id, self.body, self.upload) = (device, id, body, upload)
    }
    /// `upload`, or `body` decoded; nil when the body no longer decodes (a schema change).
    public var decoded: ConfirmationUpload? { upload ?? (try? WireKeys.decode(ConfirmationUpload.self, from: body)) }
    public var key: ConfirmationKey { ConfirmationKey(device: device, id: id) }
}

/// A confirmation's key: its device and its id.
public struct ConfirmationKey: Sendable, Hashable, Comparable {
    public var device: String
    public var id: String
    public init(device: String, id: String) { (self.device, self.id) = (device, id) }
    public static func < (a: Self, b: Self) -> Bool { (a.device, a.id) < (b.device, b.id) }
}

/// A confirmation as the map indexes it (`MapTiles.entry`).
public struct MapIndexEntry: Sendable {
    public var confirmation: IndexableConfirmation
    /// The tiles it touches (`map_tile_records`).
    public var tiles: Set<MapGrid.Cell>
    /// The tiles whose slices it can change (`MapTiles.dirtied(by:)`).
    public var dirty: Set<MapGrid.Cell>
    public var evidence: MapEvidence
    /// Why it is indexed with nothing (over the map's budget, not decodable, failing): it is
    /// not read again, and the reason is kept for the operator.
    public var setAside: String? = nil

    /// `confirmation` marked indexed with no evidence, for `reason`.
    static func setAside(_ confirmation: IndexableConfirmation, reason: String) -> MapIndexEntry {
        MapIndexEntry(confirmation: confirmation, tiles: [], dirty: [], evidence: MapEvidence(), setAside: reason)
    }
}

/// A confirmation the map set aside, and why.
public struct SetAsideConfirmation: Sendable, Equatable {
    public var key: ConfirmationKey
    public var reason: String
    /// Indexing attempts counted before it was set aside (0 when refused at once, by the budget).
    public var attempts: Int
}

/// The reports to read of one tile (`HubStore.mapEvidence`): those whose 10 m cells
/// (`MapEvidence.grid`) lie in `rows` and `columns`.
public struct ReportWindow: Sendable, Equatable {
    public var tile: MapGrid.Cell
    public var rows: ClosedRange<Int>
    public var columns: ClosedRange<Int>

    public init(tile: MapGrid.Cell, rows: ClosedRange<Int>, columns: ClosedRange<Int>) {
        (self.tile, self.rows, self.columns) = (tile, rows, columns)
    }
}

/// A tile to recompute, and the version of its dirty mark when read.
public struct DirtyTile: Sendable, Equatable {
    public var tile: MapGrid.Cell
    public var version: Int64
}
