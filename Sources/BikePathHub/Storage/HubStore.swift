import BikePathAPI
import BikePathCore
import Crypto
import Foundation

/// A record ready for `HubStore.put`: its canonical body.
public typealias StorableRecord = (kind: RecordKind, id: String, canonical: Data)

/// What a bearer token stands for.
public enum DeviceAuth: Equatable, Sendable { case device(String), unknown, revoked }

/// One device as `bikepath-hub token list` shows it (never its token).
public struct DeviceTokenStatus: Equatable, Sendable {
    public var device: String
    public var revoked: Bool
    public var managedBy: TokenManager
}

/// Who manages a device's token: the tokens file (`serve --tokens`) or `bikepath-hub token`.
public enum TokenManager: String, Sendable { case file, command }

/// The hub's storage. Every implementation keeps the same guarantees, enforced by the
/// database and not by process memory, so that several hub processes on one database
/// behave as one (docs/hub.md, "Storage"):
/// - records are keyed by (device, kind, id): the first body stored wins; the same body
///   again is a `duplicate`, a different one a `conflict`, and neither changes anything;
/// - a batch is stored whole or not at all (one transaction);
/// - tokens are kept only as SHA-256 hashes.
///
/// It is the sum of one protocol per concern, each read at once and taken alone by the
/// code that needs only it: the schema, records and tokens, the map's evidence and tiles,
/// the path network, route search, OpenStreetMap's streets, places by name, manual paths.
public protocol HubStore: SchemaStore, RecordStore, MapStore, NetworkStore, RoutingStore, StreetStore, PlaceStore, ManualPathStore {}

/// The schema's steps (`HubSchema`).
public protocol SchemaStore: Sendable {
    /// Brings the schema to the newest version; safe to run from several processes at once.
    func migrate() async throws
    /// Schema versions applied, oldest first.
    func appliedMigrations() async throws -> [String]
}

/// What devices send, and who they are: records, live positions, tokens.
public protocol RecordStore: Sendable {
    /// Stores each record unless held; one result per record, in order, one transaction.
    func put(device: String, records: [StorableRecord]) async throws -> [RecordResult]
    /// Replaces the device's latest live position.
    func putLivePosition(device: String, body: Data) async throws
    func authenticate(token: String) async throws -> DeviceAuth
    /// A new token for the device, which lifts a revocation; it is then managed by the command.
    func issueToken(device: String, token: String) async throws
    /// True when the device exists (and is now revoked).
    func revoke(device: String) async throws -> Bool
    func devices() async throws -> [DeviceTokenStatus]
    /// Applies the tokens file in one transaction under the rules of `TokenFilePlan`.
    func apply(tokenFile: [TokenFileEntry]) async throws -> TokenFileReport
    /// Every confirmation record of every device, for the shared map.
    func confirmations() async throws -> [ConfirmedRecord]
    /// The canonical bodies of the device's trip records, for its own totals.
    func trips(device: String) async throws -> [Data]
}

/// The shared map, kept a tile at a time (`MapTiles`, `MapMaintainer`): the index of which
/// confirmation touches which tile, the evidence as sums, the dirty tiles and their slices.
public protocol MapStore: Sendable {
    /// Confirmations not yet in the tile index, at most `limit`, in key order after `after`
    /// (device, id): a scan goes on from where its last batch ended instead of walking the
    /// indexed ones again for every batch (n² on a hub re-indexing everything).
    func unindexedConfirmations(after: ConfirmationKey?, limit: Int) async throws -> [IndexableConfirmation]
    /// Records which tiles each confirmation touches, adds its evidence to the stored sums
    /// (once: a confirmation indexed before adds nothing) and marks `dirty` dirty, in one transaction.
    func index(_ entries: [MapIndexEntry], dirty: Set<MapGrid.Cell>) async throws
    /// Counts one more indexing attempt of each of `keys`, in its own transaction before the
    /// attempt, and returns the attempts each had before this one (0 for none): an attempt
    /// that never finished (the hub stopped, failed or was killed) stays counted. `index`
    /// forgets a confirmation's attempts once it is indexed.
    func countIndexingAttempt(_ keys: [ConfirmationKey]) async throws -> [ConfirmationKey: Int]
    /// The confirmations indexed with no evidence because they could not be indexed
    /// (`MapIndexEntry.setAside`), with why, in key order: what the operator reads
    /// (`bikepath-hub map set-aside`).
    func setAsideConfirmations() async throws -> [SetAsideConfirmation]
    /// The stored reports (`MapEvidence.reports`) in `windows`.
    func mapEvidence(_ windows: [ReportWindow]) async throws -> MapEvidence
    /// The stored reports in `windows` grouped as the corroboration rule reads them
    /// (`CorroborationRule.ReportGroup`), without a dictionary of every rider's tallies.
    func mapReportGroups(_ windows: [ReportWindow]) async throws -> [CorroborationRule.ReportGroup]
    /// The stored path-status cells (`MapEvidence.statusCells`) that lie in `tiles`.
    func mapStatusCells(tiles: [MapGrid.Cell]) async throws -> [MapGrid.Cell: MapEvidence.StatusCell]
    /// The stored rides over the centres of `cells` (`MapEvidence.passes`).
    func mapPasses(cells: Set<MapGrid.Cell>) async throws -> [MapEvidence.PassKey: Int]
    /// Forgets the stored evidence and which confirmations were indexed, so that the next
    /// scan indexes every confirmation again (the evidence's rule changed).
    func resetMapEvidence() async throws
    /// Tiles whose slice is out of date, each with the version it was marked at, at most `limit`.
    func dirtyMapTiles(limit: Int) async throws -> [DirtyTile]
    /// Dirty tiles for this replica to recompute, oldest mark first, at most `limit`: none that
    /// another replica claimed less than `MapTiles.claimLease` ago, so replicas share the work
    /// instead of each recomputing every tile. A tile marked again is free to claim at once.
    func claimDirtyMapTiles(limit: Int) async throws -> [DirtyTile]
    /// Stores a tile's slice and the obstacles of the links whose midpoint lies in it (a link
    /// not in `links` has none) and clears its mark, if the mark is still `tile.version`.
    /// False, and nothing written, when the tile was marked again meanwhile (the slice was
    /// computed without the newer confirmation; the next pass recomputes it) or another
    /// replica already stored this version: an older slice never replaces a newer one.
    /// Its corroborated obstacles are kept apart for routing (`routingObstacles`), rewritten
    /// only when they changed: the kept graph is rebuilt when they do, not on every remake.
    @discardableResult
    func storeMapTile(_ remade: RemadeTile) async throws -> Bool
    /// `storeMapTile` of each of a pass's remade tiles: whether each was stored. SQLite
    /// writes them in one transaction, one synced commit instead of one per tile (a ride
    /// dirties 4–11 tiles); PostgreSQL keeps one transaction a tile: one holding several
    /// tiles' marks locked could deadlock with an upload marking them in another order.
    func storeMapTiles(_ remade: [RemadeTile]) async throws -> [Bool]
    /// The stored slices of the tiles in these rows and columns.
    func mapSlices(rows: ClosedRange<Int>, columns: ClosedRange<Int>) async throws -> [Data]
    /// The corroborated obstacles of the tiles in these rows and columns, a row a tile as
    /// `RemadeTile.routingObstacles` stored them (tiles with none have no row).
    func routingObstacles(rows: ClosedRange<Int>, columns: ClosedRange<Int>) async throws -> [Data]
    /// The edition of the rule the stored tiles were made by (`MapTiles.edition`); nil before any.
    func mapEdition() async throws -> String?
    /// Records the rule's edition once every tile it must remake has been marked dirty.
    func setMapEdition(_ edition: String) async throws
    /// Every tile that has a slice or that a confirmation touches.
    func mapTilesInUse() async throws -> [MapGrid.Cell]
}

extension MapStore {
    /// Every corroborated obstacle on the map: what the kept graph puts on the streets
    /// (`StreetLinks.links`). Read from their own table, not from every slice: a slice holds
    /// every corroborable spot and the path-status cells, and hostile uploads make slices of
    /// thousands of spots, none of them corroborated.
    public func corroboratedObstacles() async throws -> [ReportedObstacle] {
        try await corroboratedObstacles(rows: MapTiles.everyIndex, columns: MapTiles.everyIndex)
    }

    /// The corroborated obstacles of the tiles in these rows and columns: the same spots as
    /// those tiles' slices hold (`MapTiles.slice`), without decoding their path-status cells.
    public func corroboratedObstacles(rows: ClosedRange<Int>, columns: ClosedRange<Int>) async throws -> [ReportedObstacle] {
        try await routingObstacles(rows: rows, columns: columns).flatMap(RemadeTile.obstacles(from:))
    }
}

/// The community path network (`PathNetwork`), appended to in arrival order by the map
/// maintainer: `MapStore.index` queues each confirmation it indexes.
public protocol NetworkStore: Sendable {
    /// How far the stored network has applied the queue.
    func networkCursor() async throws -> NetworkCursor
    /// Takes (or renews) the right to extend the network for `lease`: false while another
    /// holder's lease runs. A holder that dies loses it when the lease ends.
    func claimNetwork(holder: String, for lease: Duration) async throws -> Bool
    /// Gives the right up, when `holder` has it.
    func releaseNetwork(holder: String) async throws
    /// Queued confirmations after `sequence`, in arrival order, at most `limit`.
    func queuedRides(after sequence: Int64, limit: Int) async throws -> [QueuedRide]
    /// The stored nodes in these tiles (`MapTiles.grid`).
    func networkNodes(tiles: [MapGrid.Cell]) async throws -> [NetworkNode]
    /// Writes `change` in one transaction and moves the cursor to `change.to`; false, and
    /// nothing written, when the cursor is no longer `change.from`. Its rides are marked
    /// matched to the streets when `change.streetsMatched`.
    func commit(_ change: NetworkChange) async throws -> Bool
    /// Rides the network took in while no streets were imported, oldest first, at most
    /// `limit`: their street evidence is still to add (`MapMaintainer.matchStreetBacklog`).
    func unmatchedRides(limit: Int) async throws -> [QueuedRide]
    /// Adds `evidence` and marks the rides of `sequences` matched, in one transaction; false,
    /// and nothing written, when one of them was marked already (another replica's commit).
    func commitStreetMatches(_ sequences: [Int64], evidence: [StreetIncrement]) async throws -> Bool
    /// The links whose midpoint lies in these tiles.
    func networkLinks(tiles: [MapGrid.Cell]) async throws -> [NetworkLink]
    /// The links whose bounding box meets `box` (on PostgreSQL through PostGIS's spatial index).
    func networkLinks(in box: BoundingBox) async throws -> [NetworkLink]
}

/// Route search over the network's links (`RouteSearch`).
public protocol RoutingStore: Sendable {
    /// The links meeting `box` with at least `minRiders` riders, for a route search; throws
    /// `RouteSearch.Problem.tooManyLinks` past `maxLinks` (`KeptGraph.view(in:maxLinks:)`).
    func routingGraph(in box: BoundingBox, minRiders: Int, maxLinks: Int) async throws -> any RoutingGraph
}

extension RoutingStore {
    /// The graph for a search by the default `RouteRule`.
    public func routingGraph(in box: BoundingBox, minRiders: Int) async throws -> any RoutingGraph {
        try await routingGraph(in: box, minRiders: minRiders, maxLinks: RouteRule().maxLinks)
    }
}

/// OpenStreetMap's streets (`StreetExtract`, `bikepath-hub import-osm`), keyed by way and
/// end nodes (`StreetEdge.Key`): a re-import of the same streets keeps each edge's key.
public protocol StreetStore: Sendable {
    /// Replaces every stored street with `edges` in one transaction: on any error the
    /// streets stored before stay as they were. The evidence on a street `edges` drop moves
    /// to the new edges along it (`StreetEvidenceTransfer`).
    @discardableResult
    func replaceStreets(_ edges: [StreetEdge]) async throws -> StreetReplacement
    /// The first `limit` (all when nil) of the streets whose bounding box meets `box`, by
    /// key (on PostgreSQL through PostGIS's spatial index).
    func streets(in box: BoundingBox, limit: Int?) async throws -> [StreetEdge]
    func streetCount() async throws -> Int
    /// The riders' evidence on the streets whose bounding box meets `box`, both ways summed,
    /// by key; edges no confirmed ride was matched to are absent. Every rider counts, public
    /// or not: the caller applies the rule (`NetworkLink.isPublic`).
    func streetTallies(in box: BoundingBox) async throws -> [StreetEdge.Key: StreetTally]
    /// Street edge keys holding riders' evidence that no stored street has (a re-import split
    /// the way elsewhere or left it out): kept, and counted for the operator.
    func strandedStreetEvidence() async throws -> Int
}

/// What a street import did with the riders' evidence (`StreetStore.replaceStreets`).
public struct StreetReplacement: Sendable, Equatable {
    /// Dropped edges whose evidence moved to the new edges along them.
    public var movedEvidence: Int
    /// New edges that took it.
    public var receivedEvidence: Int
}

extension StreetStore {
    /// Every street whose bounding box meets `box`, by key.
    public func streets(in box: BoundingBox) async throws -> [StreetEdge] { try await streets(in: box, limit: nil) }
}

/// Places by name (`Place`, `PlaceSearch`): what the OSM import stores, and what
/// `GET /v1/places` finds.
public protocol PlaceStore: Sendable {
    /// Stores `places` in place of every place stored before, in one transaction: an import
    /// replaces the last one's, and a reader sees the one or the other.
    func replacePlaces(_ places: [Place]) async throws
    /// The places whose names hold at least `search.minShared` of its trigrams, at most
    /// `PlaceSearch.maxCandidates` in its candidate order (most trigrams held, shortest name,
    /// OSM id): the candidates `PlaceSearch.rank` orders.
    func placeCandidates(_ search: PlaceSearch) async throws -> [Place]
    /// The box around every stored place; nil when none is stored.
    func placesExtent() async throws -> BoundingBox?
}

extension PlaceStore {
    /// The best `limit` places for `query`, ranked by match and distance from `near` (`PlaceSearch`).
    public func places(matching query: String, near: Coordinate?, limit: Int) async throws -> [PlaceSearch.Found] {
        let search = PlaceSearch(query: query)
        guard !search.trigrams.isEmpty else { return [] }
        return search.rank(try await placeCandidates(search), near: near, limit: limit)
    }
}

/// A dirty tile remade (`HubStore.storeMapTiles`): its slice, the obstacles of the links
/// whose midpoint lies in it, and its corroborated obstacles (the slice's), for routing.
public struct RemadeTile: Sendable {
    public var tile: DirtyTile
    public var slice: Data
    public var links: [Int64: LinkObstacles]
    public var obstacles: [ReportedObstacle]
    public init(tile: DirtyTile, slice: Data, links: [Int64: LinkObstacles] = [:], obstacles: [ReportedObstacle] = []) {
        (self.tile, self.slice, self.links) = (tile, slice, links)
        self.obstacles = obstacles.filter(\.corroborated)
    }

    /// The corroborated obstacles as the store keeps them, nil when there are none (no row).
    /// `JSONText`: the same obstacles give the same bytes, which the store compares to leave
    /// an unchanged row (and the routing version) alone.
    public var routingObstacles: Data? {
        get throws { obstacles.isEmpty ? nil : try JSONText.data(obstacles) }
    }

    /// What `routingObstacles` wrote.
    static func obstacles(from stored: Data) throws -> [ReportedObstacle] {
        try JSONDecoder().decode([ReportedObstacle].self, from: stored)
    }
}

extension NetworkStore {
    /// One process writes the store (SQLite): always its turn.
    public func claimNetwork(holder: String, for lease: Duration) async throws -> Bool { true }
    public func releaseNetwork(holder: String) async throws {}
}

extension MapStore {
    /// One transaction a tile.
    public func storeMapTiles(_ remade: [RemadeTile]) async throws -> [Bool] {
        var stored: [Bool] = []
        for r in remade { stored.append(try await storeMapTile(r)) }
        return stored
    }
}

enum HubHash {
    static func sha256Hex(_ data: Data) -> String { hex(SHA256.hash(data: data)) }
    /// Lowercase hex by table: `String(format:)` per byte took 10 % of the hub's CPU under load
    /// (a batch of 50 records hashes 50 bodies).
    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in digest {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
    private static let hexDigits = Array("0123456789abcdef".utf8)
    static func token(_ token: String) -> String { sha256Hex(Data(token.utf8)) }
}

/// The outcome of putting one record whose key may be held already.
enum PutOutcome {
    static func result(kind: RecordKind, id: String, stored: String?, received: String) -> RecordResult {
        guard let stored else { return RecordResult(kind: kind, id: id, status: 201, outcome: .created) }
        if stored == received { return RecordResult(kind: kind, id: id, status: 200, outcome: .duplicate) }
        return RecordResult(
            kind: kind, id: id, status: 409, outcome: .conflict,
            error: "a different \(kind.rawValue) with this id is already stored; nothing was changed",
            storedSha256: stored, receivedSha256: received)
    }
}
