import BikePathAPI
import BikePathCore
import Foundation
import Hummingbird

/// The imported OpenStreetMap streets in a box (`GET /v1/streets`): public, as the map's
/// other reads; the map page draws them as its base when it has no basemap.
extension MapEndpoints {
    func addStreets(to router: Router<HubContext>, table: RouteTable) {
        table.on(router, "v1/streets", .get) { request, _ in
            let box: BoundingBox
            do throws(BoundingBox.Problem) {
                box = try BoundingBox.parse(request.uri.queryParameters.get("bbox") ?? "", maxSquareKm: StreetsAnswer.maxSquareKm)
            } catch {
                return HubServer.answer(Refusal(.badRequest, "bad-bbox", error.description))
            }
            // One more than the cap: an answer over it is refused, not cut short.
            let edges = try await storeGuard.run { try await store.streets(in: box, limit: StreetsAnswer.maxEdges + 1) }
            guard edges.count <= StreetsAnswer.maxEdges else {
                return HubServer.answer(
                    Refusal(
                        .badRequest, "too-many-streets",
                        "the box holds more than \(StreetsAnswer.maxEdges) street edges; ask for a smaller one"))
            }
            return Self.geoJSONResponse(try StreetsAnswer(edges).encoded())
        }
    }
}

/// `/v1/streets`' answer: a FeatureCollection of LineStrings, one per street edge (a way
/// between junctions), by key, with the data's attribution as a member of its own.
struct StreetsAnswer: Encodable, Sendable {
    /// The largest box answered: the page asks once its view is this small, which a
    /// 390 × 490 px phone map reaches at zoom 14 in London (6.7 km²) and a 1920 × 626 px
    /// desktop map at zoom 15 on the equator (27.5 km²).
    static let maxSquareKm = 30.0
    /// The most edges answered (~2.6 MB of JSON at the ~260 bytes an edge takes):
    /// 30 km² of the densest imported London holds about a third of it.
    static let maxEdges = 20_000

    var type = "FeatureCollection"
    var attribution = MapEndpoints.osmAttribution
    var features: [Feature<Properties>]

    /// An edge's tags as mapped; an absent tag is left out.
    struct Properties: Encodable, Sendable {
        var wayId: Int64
        var name: String?
        var highway: String
        var surface: String?
        var smoothness: String?
        var cyclewayLeft: String?
        var cyclewayRight: String?
        var bicycle: String?
        /// Which way a bicycle may ride along the coordinates' order: both, forward, backward.
        var direction: String
        var lengthM: Double
        enum CodingKeys: String, CodingKey {
            case wayId = "way_id", name, highway, surface, smoothness, cyclewayLeft = "cycleway_left", cyclewayRight = "cycleway_right"
            case bicycle, direction, lengthM = "length_m"
        }
    }

    init(_ edges: [StreetEdge]) {
        features = edges.map { e in
            Feature(
                geometry: .line(e.points),
                properties: Properties(
                    wayId: e.key.way, name: e.name, highway: e.highway, surface: e.surface, smoothness: e.smoothness,
                    cyclewayLeft: e.cyclewayLeft, cyclewayRight: e.cyclewayRight, bicycle: e.bicycle, direction: e.direction.rawValue,
                    lengthM: (e.lengthMeters * 10).rounded() / 10))
        }
    }

    func encoded() throws -> Data { Data(try CanonicalJSONEncoder.encode(self)) }
}
