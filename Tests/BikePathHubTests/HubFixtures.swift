import BikePathAPI
import BikePathCore
import BikePathHub
import BikePathTestSupport
import Foundation
import Logging

struct TestFailure: Error, CustomStringConvertible { var description: String }

/// The stores a hub test runs on: SQLite always, PostgreSQL where it is installed, and
/// always on CI (CI=true), where a missing PostgreSQL fails the test instead of skipping it.
enum Backend: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite, postgres
    var description: String { rawValue }

    static var available: [Backend] { PostgresCluster.binDirectory != nil || PostgresCluster.required ? [.sqlite, .postgres] : [.sqlite] }

    /// A fresh, empty storage of this kind.
    func storage(_ dir: TempDir) throws -> HubStorage {
        switch self {
        case .sqlite: return .sqlite(path: dir.file("hub.sqlite"))
        case .postgres: return .postgres(url: try PostgresCluster.shared.get().createDatabase())
        }
    }
}

enum Fixtures {
    /// Migrates `store` and gives each rider of `confirmations` a token, so that their uploads are stored.
    static func prepare(_ store: any HubStore, for confirmations: [(device: String, body: Data)]) async throws {
        try await store.migrate()
        for device in Set(confirmations.map(\.device)) {
            try await store.issueToken(device: device, token: "token-of-\(device)-0123456789")
        }
    }

    static let logger: Logger = {
        var l = Logger(label: "hub-test")
        l.logLevel = .warning
        return l
    }()

    static let stats = TripStatisticsUpload(
        distanceM: 1000, elapsedS: 300, movingS: 290, avgMovingSpeed: 3.4, maxSpeed: 7, elevationGainM: 3,
        co2AvoidedG: 120)
    /// 2026-11-01 08:00 UTC.
    static let start: Int64 = 1_793_520_000_000_000_000

    static func trip(_ id: String) -> TripUpload {
        TripUpload(id: id, startUtcNs: start, endUtcNs: start + 300_000_000_000, statistics: stats)
    }

    /// A point `east` and `north` metres from `origin` (52.52 N, 13.40 E).
    static func at(east: Double, north: Double = 0) -> Coordinate {
        Coordinate(latitude: 52.52 + north / 111_320, longitude: 13.40 + east / (111_320 * cos(52.52 * .pi / 180)))
    }

    /// A confirmed ride east along 52.52 N over `meters`, with obstacles (kind, metres east)
    /// and one road-quality stretch per 100 m of `status`.
    static func confirmation(
        id: String, meters: Double = 600, obstacles: [(String, Double)] = [], origin: String = "detected",
        status: String = "optimal"
    ) -> ConfirmationUpload {
        let path = stride(from: 0.0, through: meters, by: 20).map { at(east: $0) }.map { [$0.latitude, $0.longitude] }
        let obs = obstacles.enumerated().map { i, o in
            let p = at(east: o.1)
            return ObstacleUpload(
                id: "O\(i)", kind: o.0, offsetS: 40 + Double(i), position: WirePosition(lat: p.latitude, lon: p.longitude), origin: origin)
        }
        let stretches = stride(from: 0.0, to: meters, by: 100).map { x in
            let a = at(east: x), b = at(east: x + 100)
            return RoadSegmentUpload(
                startOffsetS: x / 4, endOffsetS: (x + 100) / 4, start: WirePosition(lat: a.latitude, lon: a.longitude),
                end: WirePosition(lat: b.latitude, lon: b.longitude), lengthM: 100, roughness: 0.1, status: status)
        }
        let draft = DraftUpload(id: id, trip: trip("T-\(id)"), pathStatus: status, path: path, obstacles: obs, roadQuality: stretches)
        return ConfirmationUpload(confirmed: true, confirmedSha256: nil, draft: draft)
    }
}
