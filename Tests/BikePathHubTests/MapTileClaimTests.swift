import BikePathHub
import BikePathTestSupport
import Foundation
import Testing

/// Who recomputes a dirty tile, and which slice stays: replicas claim different tiles
/// (PostgreSQL), and a slice computed before the tile was marked again is never stored.
@Suite(.ownThreads) struct MapTileClaimTests {
    static let tiles = (0..<10).map { MapGrid.Cell(row: 100 + $0, column: 200) }

    @Test(.timeLimitOnceRunning(.minutes(2)), arguments: Backend.available)
    func aSliceOlderThanTheTilesMarkIsNotStored(_ backend: Backend) async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let tile = Self.tiles[0]
        try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            try await store.index([], dirty: [tile])
            let first = try #require(try await store.claimDirtyMapTiles(limit: 8).first)
            // A confirmation arrives while the slice is being computed: the tile is marked again.
            try await store.index([], dirty: [tile])
            let stored = try await store.storeMapTile(RemadeTile(tile: first, slice: Data("older".utf8)))
            #expect(!stored, "a slice computed before the newer mark is refused")
            #expect(try await store.mapSlices(rows: tile.row...tile.row, columns: tile.column...tile.column).isEmpty)
            let again = try await store.claimDirtyMapTiles(limit: 8)
            #expect(again.map(\.tile) == [tile] && again[0].version > first.version, "marked again, free to claim at once")
            #expect(try await store.storeMapTile(RemadeTile(tile: again[0], slice: Data("newer".utf8))))
            #expect(try await store.dirtyMapTiles(limit: 8).isEmpty)
            #expect(try await store.mapSlices(rows: tile.row...tile.row, columns: tile.column...tile.column) == [Data("newer".utf8)])
            // The same version stored twice (a claim whose lease ran out, taken over): the second is refused.
            #expect(try await !store.storeMapTile(RemadeTile(tile: again[0], slice: Data("again".utf8))))
        }
    }

    /// A pass stores its remade tiles together (`storeMapTiles`): each is judged by its own
    /// mark, so one marked again meanwhile is refused and the others are stored.
    @Test(.timeLimitOnceRunning(.minutes(2)), arguments: Backend.available)
    func tilesStoredTogetherAreEachJudgedByTheirMark(_ backend: Backend) async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let tiles = Array(Self.tiles.prefix(3))
        try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            try await store.index([], dirty: Set(tiles))
            let claimed = try await store.claimDirtyMapTiles(limit: 8).sorted { $0.tile < $1.tile }
            #expect(claimed.map(\.tile) == tiles)
            try await store.index([], dirty: [tiles[1]])
            let stored = try await store.storeMapTiles(claimed.map { RemadeTile(tile: $0, slice: Data("\($0.tile.row)".utf8), links: [:]) })
            #expect(stored == [true, false, true])
            #expect(try await store.dirtyMapTiles(limit: 8).map(\.tile) == [tiles[1]], "the tile marked again stays dirty")
            let rows = tiles[0].row...tiles[2].row, column = tiles[0].column...tiles[0].column
            #expect(try await store.mapSlices(rows: rows, columns: column) == [Data("\(tiles[0].row)".utf8), Data("\(tiles[2].row)".utf8)])
        }
    }

    @Test(.timeLimitOnceRunning(.minutes(2)))
    func replicasClaimDifferentTiles() async throws {
        try await Self.withTwoReplicas { a, b in
            try await a.index([], dirty: Set(Self.tiles))
            async let claimedByA = a.claimDirtyMapTiles(limit: 6)
            async let claimedByB = b.claimDirtyMapTiles(limit: 6)
            let (fromA, fromB) = try await (claimedByA, claimedByB)
            #expect(fromA.count + fromB.count == Self.tiles.count, "\(fromA.count) + \(fromB.count) claimed")
            #expect(Set(fromA.map(\.tile)).isDisjoint(with: fromB.map(\.tile)), "no tile claimed twice")
            #expect(Set((fromA + fromB).map(\.tile)) == Set(Self.tiles))
            #expect(try await a.claimDirtyMapTiles(limit: 6).isEmpty, "every tile is claimed while the leases run")
            #expect(try await b.dirtyMapTiles(limit: 20).count == Self.tiles.count, "claimed tiles are still dirty")
            for tile in fromB { #expect(try await b.storeMapTile(RemadeTile(tile: tile, slice: Data("b".utf8)))) }
            #expect(try await a.dirtyMapTiles(limit: 20).count == fromA.count)
        }
    }

    /// One replica extends the network at a time: the lease excludes another holder while it
    /// runs, is renewed by its holder, given up on release, and taken over once it ran out.
    @Test(.timeLimitOnceRunning(.minutes(2)))
    func oneReplicaAtATimeExtendsTheNetwork() async throws {
        try await Self.withTwoReplicas { a, b in
            #expect(try await a.claimNetwork(holder: "a", for: .seconds(30)))
            #expect(try await !b.claimNetwork(holder: "b", for: .seconds(30)), "held by a")
            #expect(try await a.claimNetwork(holder: "a", for: .seconds(30)), "renewed by its holder")
            try await b.releaseNetwork(holder: "b")
            #expect(try await !b.claimNetwork(holder: "b", for: .seconds(30)), "another's release gives up nothing")
            try await a.releaseNetwork(holder: "a")
            #expect(try await b.claimNetwork(holder: "b", for: .zero), "free once released")
            try await Task.sleep(for: .milliseconds(20))
            #expect(try await a.claimNetwork(holder: "a", for: .seconds(30)), "taken over once b's lease ran out")
        }
    }

    /// Two stores on one new PostgreSQL database, as two replicas hold it, its schema migrated.
    static func withTwoReplicas(_ body: (any HubStore, any HubStore) async throws -> Void) async throws {
        try #require(Backend.available.contains(.postgres), "PostgreSQL is not installed (CI installs it and runs this)")
        let dir = try TempDir()
        defer { dir.cleanup() }
        let storage = try Backend.postgres.storage(dir)
        try await storage.withStore(logger: Fixtures.logger) { a in
            try await a.migrate()
            try await storage.withStore(logger: Fixtures.logger) { b in try await body(a, b) }
        }
    }
}
