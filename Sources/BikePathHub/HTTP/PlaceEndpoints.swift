import BikePathAPI
import BikePathCore
import Foundation
import Hummingbird

/// Places by name (`GET /v1/places`) and where the hub's data lies (`GET /v1/map/extent`):
/// public, as the map's other reads.
extension MapEndpoints {
    /// The data is OpenStreetMap's, under the ODbL: every answer says so.
    static let osmAttribution = "© OpenStreetMap contributors"

    func addPlaces(to router: Router<HubContext>, table: RouteTable) {
        table.on(router, "v1/places", .get) { request, _ in
            let parameters = request.uri.queryParameters
            switch PlaceQuery.parse(q: parameters.get("q"), near: parameters.get("near"), limit: parameters.get("limit")) {
            case .failure(let refusal): return HubServer.answer(refusal)
            case .success(let query):
                let found = try await storeGuard.run {
                    try await store.places(matching: query.text, near: query.near, limit: query.limit)
                }
                return Self.geoJSONResponse(try PlacesAnswer(found).encoded())
            }
        }
        table.on(router, "v1/map/extent", .get) { _, _ in
            let box = try await storeGuard.run { try await dataExtent() }
            return HubServer.json(.ok, Extent(bbox: box.map { [$0.west, $0.south, $0.east, $0.north].map(Geometry.rounded) }))
        }
    }

    /// The box around the stored map's tiles and the stored places; nil when there is neither.
    func dataExtent() async throws -> BoundingBox? {
        var boxes = try await store.mapTilesInUse().map { cell in
            let b = MapTiles.grid.bounds(of: cell)
            return BoundingBox(west: b.west, south: b.south, east: b.east, north: b.north)
        }
        if let places = try await store.placesExtent() { boxes.append(places) }
        guard let first = boxes.first else { return nil }
        return boxes.dropFirst().reduce(first) {
            BoundingBox(
                west: min($0.west, $1.west), south: min($0.south, $1.south), east: max($0.east, $1.east), north: max($0.north, $1.north))
        }
    }

    /// `{"bbox": [W, S, E, N]}`, or `{"bbox": null}` on a hub with no data yet.
    struct Extent: Encodable {
        var bbox: [Double]?
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(bbox, forKey: .bbox)
        }
        enum CodingKeys: String, CodingKey { case bbox }
    }
}

/// `/v1/places`' answer: a FeatureCollection of Points, best first, with the data's
/// attribution as a member of its own (RFC 7946 §6.1 allows foreign members).
struct PlacesAnswer: Encodable, Sendable {
    var type = "FeatureCollection"
    var attribution = MapEndpoints.osmAttribution
    var features: [Feature<Properties>]

    struct Properties: Encodable, Sendable {
        var name: String
        var kind: String
        /// Whole metres from `near`, when the request gave one.
        var distanceM: Double?
        enum CodingKeys: String, CodingKey { case name, kind, distanceM = "distance_m" }
    }

    init(_ found: [PlaceSearch.Found]) {
        features = found.map {
            Feature(
                geometry: .point($0.place.position),
                properties: Properties(name: $0.place.name, kind: $0.place.kind, distanceM: $0.distanceMeters?.rounded()))
        }
    }

    func encoded() throws -> Data { Data(try CanonicalJSONEncoder.encode(self)) }
}
