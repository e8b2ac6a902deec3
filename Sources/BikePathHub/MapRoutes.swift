import BikePathAPI
import Foundation
import Hummingbird
import NIOCore

/// The public read API (docs/api.yaml, "Shared map"): GeoJSON of corroborated obstacles,
/// path status and a heatmap of reports in a bounding box, and a device's own totals.
/// No answer holds a device id, a track, or a time finer than a day.
struct MapRoutes {
    let store: any HubStore

    /// Heatmap cells: 250 m by default, 50 m to 5 km on request.
    static let heatCellMeters = (default: 250.0, range: 50.0...5_000.0)

    func add(to router: Router<HubContext>, table: RouteTable, authenticate: @escaping @Sendable (Request, HubContext) async throws -> HubServer.AuthResult) {
        table.on(router, "v1/map/obstacles", .get) { request, _ in
            try await geoJSON(request) { map, box in try WireJSON.encode(map.obstaclesGeoJSON(in: box)) }
        }
        table.on(router, "v1/map/status", .get) { request, _ in
            try await geoJSON(request) { map, box in try WireJSON.encode(map.statusGeoJSON(in: box)) }
        }
        table.on(router, "v1/map/heatmap", .get) { request, _ in
            // A `cell` that is there but not a number is refused, not taken as the default
            // (the contract test found `cell=abc` answered 200).
            let text = request.uri.queryParameters.get("cell")
            let cell = text.map { DecimalText.number($0) ?? .nan } ?? Self.heatCellMeters.default
            guard Self.heatCellMeters.range.contains(cell) else {
                return HubServer.answer(Refusal(.badRequest, "bad-cell", "cell must be \(Int(Self.heatCellMeters.range.lowerBound))-\(Int(Self.heatCellMeters.range.upperBound)) metres"))
            }
            return try await geoJSON(request) { map, box in try WireJSON.encode(map.heatmapGeoJSON(in: box, grid: MapGrid(cellMeters: cell))) }
        }
        table.on(router, "v1/me/totals", .get) { request, context in
            switch try await authenticate(request, context) {
            case .failure(let response): return response
            case .success(let device):
                let trips = try await store.trips(device: device).compactMap { try? JSONDecoder().decode(TripUpload.self, from: $0) }
                return HubServer.json(.ok, DeviceTotals(trips: trips))
            }
        }
    }

    private func geoJSON(_ request: Request, _ encode: (SharedMap, BoundingBox) throws -> Data) async throws -> Response {
        let box: BoundingBox
        do {
            box = try BoundingBox.parse(request.uri.queryParameters.get("bbox") ?? "")
        } catch {
            return HubServer.answer(Refusal(.badRequest, "bad-bbox", error.description))
        }
        // The stored tiles under the box (`MapTiles`): no request builds the map.
        let range = MapTiles.range(of: box)
        let slices = try await store.mapSlices(rows: range.rows, columns: range.columns).map { try JSONDecoder().decode(MapSlice.self, from: $0) }
        let body = try encode(SharedMap(slices: slices), box)
        return Response(status: .ok, headers: [.contentType: "application/geo+json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
