import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// What a pass counts: the tiles it remade and those superseded by a newer mark. The hub's
/// metrics (`HubMetrics`, served by the HTTP layer above) take it; the maintainer does not
/// reach up to them.
protocol MapPassCounter: Sendable {
    func mapTiles(remade: Int, superseded: Int)
}

/// Keeps the stored map tiles (`MapTiles`) up to date, as a queued step beside the
/// uploads: an upload only queues its confirmation here; a pass indexes what is queued,
/// a batch at a time (`HubStore.index`: its evidence added, the tiles it touches marked
/// dirty), and recomputes dirty tiles, each once however many confirmations marked it
/// meanwhile. No request waits for it: the read endpoints
/// answer from the stored tiles, which trail an upload by one pass (milliseconds to a
/// second). Every replica runs one; they share the work through the tables (each claims
/// the tiles it recomputes), and a tile marked again while it was being recomputed keeps
/// its older slice out and stays dirty for the next pass.
final class MapMaintainer: Service {
    private let store: any HubStore
    private let metrics: any MapPassCounter
    private let logger: Logger
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>
    private let queue = Mutex(Queue())
    private let queueLimit: Int

    /// Tiles and confirmations read per query; confirmations indexed per transaction.
    static let batch = 64
    /// At most this many confirmations wait in memory for a pass (a 120-point ride's body is
    /// about 6 KB, and as much again decoded: some 50 MB); beyond it an upload's confirmation
    /// is left to the scan (`scanInterval`), which finds every confirmation not indexed.
    static let defaultQueueLimit = 4096

    /// Confirmations stored by this replica's uploads, not yet indexed.
    private struct Queue {
        var confirmations: [IndexableConfirmation] = []
        /// Set when one was left to the scan, so that an overload is said once, not per upload.
        var overflowing = false
    }
    /// A pass also runs this often without a wake-up: another replica's uploads mark tiles too.
    static let idlePass: Duration = .seconds(1)
    /// How often a pass looks for confirmations no upload indexed.
    static let scanInterval: Duration = .seconds(30)

    init(store: any HubStore, metrics: any MapPassCounter, logger: Logger, queueLimit: Int = defaultQueueLimit) {
        self.store = store
        self.queueLimit = queueLimit
        self.metrics = metrics
        self.logger = logger
        (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Queues confirmations just stored for the next pass, which indexes them. Not in the
    /// upload's transaction: indexing one ride adds ~1,000 rows of rides to sums that every
    /// upload on the same streets adds to, and uploads waited on each other's row locks
    /// (PostgreSQL: p50 4.4 s at 160 records/s, docs/performance.md); a pass adds a batch's
    /// sums at once, one writer per replica. A confirmation lost here (a full queue, a
    /// failed pass, a restart) is stored; the scan indexes it.
    func stored(_ confirmations: [IndexableConfirmation]) {
        guard !confirmations.isEmpty else { return }
        let overflowStarted = queue.withLock { q -> Bool in
            let room = max(0, queueLimit - q.confirmations.count)
            q.confirmations.append(contentsOf: confirmations.prefix(room))
            let was = q.overflowing
            q.overflowing = confirmations.count > room
            return q.overflowing && !was
        }
        if overflowStarted {
            logger.warning(
                "map: \(queueLimit) confirmations wait for the map; further ones are left to the scan (every \(Self.scanInterval))")
        }
        wake.yield()
    }

    /// Confirmations waiting for the next pass.
    var queued: Int { queue.withLock { $0.confirmations.count } }

    /// How long shutdown waits for a cancelled pass before leaving it behind.
    static let shutdownGrace: Duration = .seconds(2)

    /// Cancelled at shutdown, but not waited for beyond `shutdownGrace`: a query in flight when
    /// PostgreSQL stopped could ignore the cancellation for ever (postgres-nio 1.33; seen when
    /// the server shut down during the first pass's first query), and held the hub's exit with
    /// it. A pass left behind writes nothing more that matters: each tile's slice is committed
    /// alone, and a claim not completed expires (`MapTiles.claimLease`).
    func run() async throws {
        let passes = Task { await self.passes() }
        let (ended, end) = AsyncStream.makeStream(of: Void.self)
        Task {
            await passes.value
            end.finish()
        }
        await withTaskCancellationOrGracefulShutdownHandler {
            for await _ in ended {}
        } onCancelOrGracefulShutdown: {
            passes.cancel()
            Task {
                try? await Task.sleep(for: Self.shutdownGrace)
                end.finish()
            }
        }
    }

    private func passes() async {
        let wake = wake
        var timer = Task<Void, Never> {}
        defer { timer.cancel() }
        var wakes = self.wakes.makeAsyncIterator()
        var lastScan: ContinuousClock.Instant?
        repeat {
            // The scan for unindexed confirmations reads every confirmation's key: at start,
            // then at most every `scanInterval`, not on each upload's wake-up.
            let scan = lastScan.map { ContinuousClock.now - $0 >= Self.scanInterval } ?? true
            if scan { lastScan = .now }
            let started = ContinuousClock.now
            let queued = queue.withLock { q in
                defer { q.confirmations = [] }
                return q.confirmations
            }
            do {
                try await Self.pass(store, indexing: queued, scan: scan, metrics: metrics, logger: logger)
            } catch {
                if Task.isCancelled { return }
                logger.warning("map: pass failed, retried in \(Self.idlePass): \(error)")
                // The queued confirmations it held are stored, not indexed: the next pass's
                // scan finds them (each tried alone, `index`), not one 30 s on.
                lastScan = nil
            }
            // At most half a core: a long pass (seconds on a busy city) is followed by as
            // long a rest, so that uploads keep the other half while a stream of them
            // keeps marking tiles. The map then trails by up to two passes.
            let took = ContinuousClock.now - started
            if took > .milliseconds(100) {
                try? await Task.sleep(for: took)
                if Task.isCancelled { return }
            }
            // A cancelled timer must not wake the loop: `try? await Task.sleep` returns at once
            // when cancelled, and a timer that yielded then made every pass start the next at
            // once (an idle hub spun at a third of a core).
            timer.cancel()
            timer = Task {
                guard (try? await Task.sleep(for: Self.idlePass)) != nil else { return }
                wake.yield()
            }
        } while await wakes.next() != nil  // nil once cancelled
    }

    /// Attempts at indexing one confirmation before it is set aside. An attempt is counted in
    /// the store before it is made (`HubStore.countIndexingAttempt`), so one the hub never
    /// finished (a pass that failed on it, a hub killed while indexing it) is known on the next
    /// try, which takes it alone: one record holds up only itself, for at most this many
    /// tries (a polar path once killed every restart's first pass, for ever).
    static let maxAttempts = 3

    /// Indexes `confirmations`: those tried before and not finished each alone, after the rest
    /// as one batch. A new confirmation dirties every tile its evidence reaches
    /// (`MapTiles.dirtied(by:)`): a spot's centre can move across a border, a pass along a
    /// border can count against a spot on the other side.
    /// Returns the confirmed rides, decoded, for the network (`extendNetwork`) that follows.
    /// `budgeted`: the confirmations were measured against `RideBudget` at upload (those the
    /// uploads queued), so the measure is not taken again on this hot path; the scan's may
    /// have been stored before the budget existed.
    @discardableResult
    static func index(
        _ confirmations: [IndexableConfirmation], _ store: any MapStore, budgeted: Bool = false, logger: Logger
    ) async throws -> [ConfirmationKey: RiddenPath] {
        guard !confirmations.isEmpty else { return [:] }
        let before = try await store.countIndexingAttempt(confirmations.map(\.key))
        let retried = confirmations.filter { before[$0.key, default: 0] > 0 }
        var ridden = try await write(
            confirmations.filter { before[$0.key, default: 0] == 0 }, store, attempts: before, budgeted: budgeted, logger: logger)
        for c in retried {
            do {
                ridden.merge(try await write([c], store, attempts: before, budgeted: budgeted, logger: logger)) { a, _ in a }
            } catch {
                logger.warning(
                    "map: confirmation \(c.id) of \(c.device) failed to index (attempt \(before[c.key, default: 0] + 1) of \(maxAttempts)): \(error)"
                )
            }
        }
        return ridden
    }

    private static func write(
        _ confirmations: [IndexableConfirmation], _ store: any MapStore, attempts: [ConfirmationKey: Int], budgeted: Bool,
        logger: Logger
    ) async throws -> [ConfirmationKey: RiddenPath] {
        guard !confirmations.isEmpty else { return [:] }
        var ridden: [ConfirmationKey: RiddenPath] = [:]
        let entries = confirmations.map { c in
            // Indexed with no evidence, so that it is not read again, and the reason kept
            // (`bikepath-hub map set-aside`) and said once here; the rest of the map goes on.
            func setAside(_ reason: String) -> MapIndexEntry {
                logger.warning("map: confirmation \(c.id) of \(c.device) set aside: \(reason)")
                return .setAside(c, reason: reason)
            }
            let tried = attempts[c.key, default: 0]
            if tried >= maxAttempts { return setAside("indexing it did not finish in \(tried) attempts") }
            // Stored records passed validation; one that no longer decodes is a schema change.
            guard let upload = c.decoded else { return setAside("it does not decode as a confirmation") }
            // Over the budget (stored before the upload checked it).
            if !budgeted {
                let over = upload.confirmed ? RideBudget.problems(upload.draft, prefix: "draft.", tiles: false) : []
                guard over.isEmpty else { return setAside("over the map's budget: \(over.joined(separator: "; "))") }
            }
            let entry = MapTiles.entry(for: c, upload)
            if !budgeted, let problem = RideBudget.tilesProblem(entry.dirty.count, prefix: "draft.") {
                return setAside("over the map's budget: \(problem)")
            }
            ridden[c.key] = RiddenPath(device: c.device, upload)
            return entry
        }
        let dirty = entries.reduce(into: Set<MapGrid.Cell>()) { $0.formUnion($1.dirty) }
        try await store.index(entries, dirty: dirty)
        return ridden
    }

    /// Indexes the confirmations uploads queued and, with `scan`, what is not indexed yet
    /// (confirmations from before the tiles, or whose queued indexing was lost), then
    /// recomputes every dirty tile.
    static func pass(
        _ store: any MapStore & NetworkStore & StreetStore, indexing queued: [IndexableConfirmation] = [], scan: Bool = true,
        metrics: (any MapPassCounter)? = nil,
        logger: Logger
    ) async throws {
        if scan { try await remakeIfTheRuleChanged(store, logger: logger) }
        // The rides just decoded, for the network: most of what it reads next (the scan's, of
        // a whole backlog, are not kept).
        var ridden: [ConfirmationKey: RiddenPath] = [:]
        for slice in queued.batches(of: batch) {
            ridden.merge(try await index(Array(slice), store, budgeted: true, logger: logger)) { a, _ in a }
        }
        var after: ConfirmationKey? = nil
        while scan {
            let fresh = try await store.unindexedConfirmations(after: after, limit: batch)
            guard let last = fresh.last else { break }
            try await index(fresh, store, logger: logger)
            after = last.key
        }
        // The network first: a tile's links then include the rides that dirtied it.
        try await extendNetwork(store, decoded: ridden, logger: logger)
        try await matchStreetBacklog(store, logger: logger)
        while true {
            let dirty = try await store.claimDirtyMapTiles(limit: batch)
            if dirty.isEmpty { break }
            // One build for the batch: a ride dirties a corridor of tiles whose neighbourhoods
            // overlap, and one build over their union serves each (the rule is local).
            let tiles = Set(dirty.map(\.tile))
            let area = Set(tiles.flatMap(MapTiles.neighbourhood(of:))).sorted()
            // The stored sums, not the confirmations: the reports within reach of the tiles
            // (what this reads grows with the riders who reported there), the rides (by far
            // the most rows) at the spots only.
            // Groups farther than the reach are left out: they cannot change these tiles' spots.
            let groups = try await store.mapReportGroups(MapTiles.reportWindows(around: tiles))
            // Only the spots that can be corroborated: a slice keeps no other.
            let spots = CorroborationRule().gather(groups.filter { MapTiles.reaches(tiles, $0.position) }, corroborableOnly: true)
            // Its rides only: no reports (a slice keeps none for the heatmap), no stretches (the
            // status cells are read as the store keeps them).
            var evidence = MapEvidence()
            evidence.passes = try await store.mapPasses(cells: spots.cells)
            // A path-status cell depends on its own sums only (and the spots in it): the dirty tiles' cells.
            let map = SharedMap(evidence: evidence, gathered: spots, statusCells: try await store.mapStatusCells(tiles: tiles.sorted()))
            // Each dirty tile's links take the obstacles nearest them; the candidates for an
            // obstacle near a tile are all in its neighbourhood, so inside `area`.
            // With no corroborated obstacle in the area no link of it carries one: its links
            // (thousands a tile on a city) need not be read to find out.
            let links = map.obstacles.contains(where: \.corroborated) ? try await store.networkLinks(tiles: area) : []
            let obstacles = LinkObstacles.assign(map.obstacles, to: links, radiusMeters: CorroborationRule().radiusMeters)
            // Each link's tile once (a cosine each), not again for every dirty tile of the batch.
            let linksByTile = Dictionary(grouping: links, by: \.tile)
            let remade = try dirty.map { tile in
                let own = (linksByTile[tile.tile] ?? []).compactMap { l in obstacles[l.id].map { (l.id, $0) } }
                let slice = MapTiles.slice(tile.tile, of: map)
                return RemadeTile(
                    tile: tile, slice: try JSONEncoder().encode(slice), links: Dictionary(uniqueKeysWithValues: own),
                    obstacles: slice.obstacles)
            }
            let superseded = try await store.storeMapTiles(remade).filter { !$0 }.count
            metrics?.mapTiles(remade: dirty.count - superseded, superseded: superseded)
            if superseded > 0 { logger.debug("map: \(superseded) of \(dirty.count) tiles were marked again meanwhile; recomputed next") }
        }
    }

    /// Marks every tile in use (and its neighbourhood, as an upload would) dirty when the
    /// stored tiles were made by another edition of the rule, then records this one: the
    /// passes that follow remake them, with no request waiting. Two replicas upgraded together
    /// may both mark them; the tiles are then remade once or twice, never left stale.
    static func remakeIfTheRuleChanged(_ store: any MapStore, logger: Logger) async throws {
        let stored = try await store.mapEdition()
        guard stored != MapTiles.edition else { return }
        let tiles = Set(try await store.mapTilesInUse().flatMap(MapTiles.neighbourhood(of:)))
        // The evidence is summed by the rule's parameters too: every confirmation adds it again
        // in the scan that follows (this pass's), before the tiles are remade.
        try await store.resetMapEvidence()
        try await store.index([], dirty: tiles)
        try await store.setMapEdition(MapTiles.edition)
        guard !tiles.isEmpty else { return }
        let was = stored.map { "rule edition \"\($0)\"" } ?? "no recorded rule edition"
        logger.notice("map: made by \(was); \(tiles.count) tiles to remake by \"\(MapTiles.edition)\"")
    }

    /// Appends the queued confirmations to the community path network, a batch at a time in
    /// arrival order: reads the stored nodes near the batch's rides, adds the rides
    /// (`PathNetwork`), matches them to the streets (`streetIncrements`), and commits the new
    /// nodes, the links' and the street edges' added evidence in one transaction. Another
    /// replica that committed the same batch first makes the commit a no-op; it reads again.
    /// `decoded`: rides already decoded by their keys (a queued ride not among them is decoded here).
    static func extendNetwork(
        _ store: any NetworkStore & StreetStore, decoded: [ConfirmationKey: RiddenPath] = [:], logger: Logger
    ) async throws {
        // One replica at a time: two replicas computed each batch and one commit was thrown
        // away (about a quarter of the map's CPU with two replicas). The other waits for the lease
        // rather than skipping: the tiles it remakes next must hold the rides that dirtied them.
        // An idle pass (one a second) finds nothing queued: no lease taken, nothing written.
        guard try await !store.queuedRides(after: store.networkCursor().applied, limit: 1).isEmpty else { return }
        try await withNetworkLease(store) { holder in try await extendNetwork(store, decoded: decoded, holder: holder, logger: logger) }
    }

    /// Runs `work` holding the network's lease, waiting for it while another replica holds it.
    private static func withNetworkLease(_ store: any NetworkStore, _ work: (String) async throws -> Void) async throws {
        let holder = UUID().uuidString
        do {
            while try await !store.claimNetwork(holder: holder, for: networkLease) {
                try await Task.sleep(for: .milliseconds(50))
            }
            try await work(holder)
            try await store.releaseNetwork(holder: holder)
        } catch {
            try? await store.releaseNetwork(holder: holder)
            throw error
        }
    }

    /// Matches to the streets a batch of the rides the network took in while none were
    /// imported (a hub that ran before its first import; docs/hub.md, "The riders' evidence
    /// on the streets"), its evidence committed with its rides marked, so that a ride's
    /// evidence is added once whichever replica commits it. One batch a pass, under the
    /// network's lease: a backlog of years (the matcher takes 1,000-2,000 fixes a second in
    /// a debug build, docs/hub.md) never holds the network from new rides for longer than a
    /// batch. An idle pass reads a street and an index entry, the street first: on a hub with
    /// no import every ride is unmatched, and reading one (its body) each second is waste.
    static func matchStreetBacklog(_ store: any NetworkStore & StreetStore, logger: Logger) async throws {
        guard try await !store.streets(in: .world, limit: 1).isEmpty, try await !store.unmatchedRides(limit: 1).isEmpty else { return }
        try await withNetworkLease(store) { _ in
            let queued = try await store.unmatchedRides(limit: batch)
            guard !queued.isEmpty else { return }
            // A body that no longer decodes adds nothing; it is marked all the same.
            let rides = queued.compactMap { RiddenPath($0.record) }
            let evidence = try await streetIncrements(rides, store)
            if try await store.commitStreetMatches(queued.map(\.sequence), evidence: StreetRides.summed(evidence)) {
                logger.info("map: \(queued.count) rides confirmed before the streets were imported matched to them")
            } else {
                logger.debug("map: another replica matched these rides first")
            }
        }
    }

    /// How long a replica holds the network without renewing it (each batch renews it; a
    /// batch of 64 rides takes well under a second).
    static let networkLease: Duration = .seconds(30)

    private static func extendNetwork(
        _ store: any NetworkStore & StreetStore, decoded: [ConfirmationKey: RiddenPath], holder: String, logger: Logger
    ) async throws {
        while true {
            let cursor = try await store.networkCursor()
            let queued = try await store.queuedRides(after: cursor.applied, limit: batch)
            guard let last = queued.last else { return }
            guard try await store.claimNetwork(holder: holder, for: networkLease) else {
                logger.warning("map: the network's lease ran out mid-extension; another replica goes on")
                return
            }
            let rides = queued.compactMap { decoded[$0.key] ?? RiddenPath($0.record) }
            let probe = PathNetwork()
            let tiles = rides.reduce(into: Set<MapGrid.Cell>()) { $0.formUnion(probe.tiles(near: $1)) }
            var network = PathNetwork(nodes: try await store.networkNodes(tiles: tiles.sorted()), nextNode: cursor.nextNode)
            for ride in rides { network.add(ride) }
            // With no streets imported the rides wait, unmatched, for the first import
            // (`matchStreetBacklog`). Read before matching: an import committed meanwhile
            // leaves them unmatched, never matched twice.
            let matching = try await !store.streets(in: .world, limit: 1).isEmpty
            let streets = matching ? try await streetIncrements(rides, store) : []
            let change = NetworkChange(network: network, from: cursor, appliedTo: last.sequence, streets: streets, streetsMatched: matching)
            if try await !store.commit(change) {
                logger.debug("map: another replica extended the network first; reading it again")
            }
        }
    }
}

extension MapMaintainer {
    /// The street evidence of `rides` (`StreetRides`), each matched to the streets read around
    /// it: the whole ride goes to the community network as well (docs/hub.md, "The riders'
    /// evidence on the streets"). A store with no streets answers each read at once, empty.
    static func streetIncrements(_ rides: [RiddenPath], _ store: any StreetStore) async throws -> [StreetIncrement] {
        var out: [StreetIncrement] = []
        for ride in rides {
            guard let box = StreetRides.box(around: ride) else { continue }
            let streets = try await store.streets(in: box)
            guard !streets.isEmpty else { continue }
            out += StreetRides.increments(ride, on: StreetGraph(edges: streets))
        }
        return out
    }
}

/// The map brought up to date by a caller (`bikepath-hub`'s tools, tests, benchmarks), as
/// the maintainer does.
extension MapTiles {
    /// Brings the stored map up to date now, as the hub's `MapMaintainer` does after
    /// uploads: indexes every confirmation not yet indexed and recomputes every dirty tile.
    public static func update(_ store: any MapStore & NetworkStore & StreetStore, logger: Logger = Logger(label: "bikepath.hub.map"))
        async throws
    {
        try await MapMaintainer.pass(store, logger: logger)
    }

    /// Takes just-stored confirmations into the map as the pass after their uploads does
    /// (`MapMaintainer.stored`): indexes them and recomputes the dirty tiles, without the
    /// scan for confirmations not indexed (a hub runs that every 30 s, not per pass).
    public static func ingest(
        _ confirmations: [IndexableConfirmation], _ store: any MapStore & NetworkStore & StreetStore,
        logger: Logger = Logger(label: "bikepath.hub.map")
    ) async throws {
        try await MapMaintainer.pass(store, indexing: confirmations, scan: false, logger: logger)
    }
}
