import BikePathAPI
import Foundation
import Hummingbird
import NIOCore

/// The public read API (docs/api.yaml, "Shared map"): GeoJSON of corroborated obstacles,
/// path status and a heatmap of reports in a bounding box, and a device's own totals.
/// No answer holds a device id, a track, or a time finer than a day.
struct MapEndpoints: Sendable {
    let store: any HubStore
    let storeGuard: StoreGuard
    let searches = SearchGate(running: HubLimits.routeSearches.running, waiting: HubLimits.routeSearches.waiting)

    /// Heatmap cells: 250 m by default, 50 m to 5 km on request.
    static let heatCellMeters = (default: 250.0, range: 50.0...5_000.0)

    func add(
        to router: Router<HubContext>, table: RouteTable,
        authenticate: @escaping @Sendable (Request, HubContext) async throws -> HubServer.AuthResult
    ) {
        table.on(router, "v1/map/obstacles", .get) { request, _ in
            try await geoJSON(request) { map, box in try map.obstaclesGeoJSON(in: box).encoded() }
        }
        table.on(router, "v1/map/status", .get) { request, _ in
            try await geoJSON(request) { map, box in try map.statusGeoJSON(in: box).encoded() }
        }
        table.on(router, "v1/map/network", .get) { request, _ in
            try await inBox(request) { box in
                let edges = NetworkEdge.edges(of: try await store.networkLinks(in: box), minRiders: CorroborationRule().minRiders)
                return Self.geoJSONResponse(try NetworkEdge.geoJSONData(edges))
            }
        }
        table.on(router, "v1/routes", .get) { request, _ in
            let query: RouteQuery
            let parameters = request.uri.queryParameters
            switch RouteQuery.parse(from: parameters.get("from"), to: parameters.get("to"), k: parameters.get("k")) {
            case .failure(let refusal): return HubServer.answer(refusal)
            case .success(let q): query = q
            }
            // On threads of their own, not the cooperative pool the other requests share.
            let search = { try await withTaskExecutorPreference(SearchThreads.shared) { try await routes(query) } }
            guard let answer = try await searches.enter(search) else {
                var busy = HubServer.answer(
                    Refusal(
                        .serviceUnavailable, "busy",
                        "\(HubLimits.routeSearches.running) route searches are running and \(HubLimits.routeSearches.waiting) waiting; ask again in a second"
                    ))
                busy.headers[.retryAfter] = "1"
                return busy
            }
            return answer
        }
        table.on(router, "v1/map/heatmap", .get) { request, _ in
            // A `cell` that is there but not a number is refused, not taken as the default
            // (the contract test found `cell=abc` answered 200).
            let text = request.uri.queryParameters.get("cell")
            let cell = text.map { DecimalText.number($0) ?? .nan } ?? Self.heatCellMeters.default
            guard Self.heatCellMeters.range.contains(cell) else {
                return HubServer.answer(
                    Refusal(
                        .badRequest, "bad-cell",
                        "cell must be \(Int(Self.heatCellMeters.range.lowerBound))-\(Int(Self.heatCellMeters.range.upperBound)) metres"))
            }
            return try await inBox(request) { box in
                // The stored reports under the box, not the tiles: they are current as soon as indexed.
                let map = SharedMap(reportsOf: try await store.mapEvidence(MapTiles.reportWindows(in: box)))
                return Self.geoJSONResponse(try map.heatmapGeoJSON(in: box, grid: MapGrid(cellMeters: cell)).encoded())
            }
        }
        addPlaces(to: router, table: table)
        addStreets(to: router, table: table)
        table.on(router, "v1/me/totals", .get) { request, context in
            switch try await authenticate(request, context) {
            case .failure(let response): return response
            case .success(let device):
                let stored = try await storeGuard.run { try await store.trips(device: device) }
                // Stored trips passed validation; one that no longer decodes (a schema change)
                // is left out of the totals, and said, not silently dropped.
                let trips = stored.compactMap { try? WireKeys.decode(TripUpload.self, from: $0) }
                if trips.count < stored.count {
                    context.logger.warning(
                        "totals: \(stored.count - trips.count) of \(stored.count) stored trips of \(device) do not decode: left out")
                }
                return HubServer.json(.ok, DeviceTotals(trips: trips))
            }
        }
    }

    private func geoJSON(_ request: Request, _ encode: @escaping @Sendable (SharedMap, BoundingBox) throws -> Data) async throws -> Response
    {
        try await inBox(request) { box in
            // The stored tiles under the box (`MapTiles`): no request builds the map.
            let range = MapTiles.range(of: box)
            let slices = try await store.mapSlices(rows: range.rows, columns: range.columns).map { try MapSlice.decoded($0) }
            return Self.geoJSONResponse(try encode(SharedMap(slices: slices), box))
        }
    }

    /// `answer` for the request's `bbox`, or the 400 that refuses it.
    private func inBox(_ request: Request, _ answer: @escaping @Sendable (BoundingBox) async throws -> Response) async throws -> Response {
        switch Self.box(request) {
        case .failure(let refusal): return HubServer.answer(refusal)
        case .success(let box): return try await storeGuard.run { try await answer(box) }
        }
    }

    private func routes(_ query: RouteQuery) async throws -> Response {
        let search = RouteSearch()
        let box = search.rule.searchBox(query.from, query.to)
        let routes: [Route]
        do {
            // The store's part bounded in time; the search's CPU is not the store's silence.
            let graph = try await storeGuard.run {
                try await store.routingGraph(in: box, minRiders: search.minRiders, maxLinks: search.rule.maxLinks)
            }
            routes = try await search.routes(from: query.from, to: query.to, k: query.k, on: graph)
        } catch let problem as RouteSearch.Problem {
            switch problem {
            case .noPathNear(_, let nearest, _):
                return HubServer.json(
                    .notFound, NoPathNear(error: "no-path-near", message: problem.description, nearestM: nearest.map { $0.rounded() }))
            case .noRoute:
                return HubServer.answer(Refusal(.notFound, "no-route", problem.description))
            case .tooManyLinks:
                return HubServer.answer(Refusal(.badRequest, "too-many-links", problem.description))
            }
        }
        // The obstacles along them: the corroborated ones of the tiles under the box (their
        // slices hold the same spots, and their path-status cells, decoded for nothing).
        let range = MapTiles.range(of: box)
        let spots = try await storeGuard.run { try await store.corroboratedObstacles(rows: range.rows, columns: range.columns) }
        return Self.geoJSONResponse(
            try Route.geoJSON(routes, spots: spots, radiusMeters: CorroborationRule().radiusMeters).encoded())
    }

    /// 404 `no-path-near`: the refusal with how far the nearest community path or street is.
    struct NoPathNear: Encodable {
        var error: String
        var message: String
        var nearestM: Double?
        enum CodingKeys: String, CodingKey { case error, message, nearestM = "nearest_m" }
    }

    /// The request's `bbox`, or the 400 that refuses it.
    static func box(_ request: Request) -> Result<BoundingBox, Refusal> {
        let box: BoundingBox
        do {
            box = try BoundingBox.parse(request.uri.queryParameters.get("bbox") ?? "")
        } catch {
            return .failure(Refusal(.badRequest, "bad-bbox", error.description))
        }
        // Area alone let a thin box round the world through (80,000 tiles: 1.8 s and 480 MB).
        let tiles = MapTiles.tileCount(in: box, limit: HubLimits.maxTilesPerBox)
        guard tiles <= HubLimits.maxTilesPerBox else {
            return .failure(
                Refusal(
                    .badRequest, "too-many-tiles",
                    "the box spans more than \(HubLimits.maxTilesPerBox) map tiles of \(Int(MapTiles.grid.cellMeters)) m; ask for a smaller one"
                ))
        }
        return .success(box)
    }

    static func geoJSONResponse(_ body: Data) -> Response {
        Response(status: .ok, headers: [.contentType: "application/geo+json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
