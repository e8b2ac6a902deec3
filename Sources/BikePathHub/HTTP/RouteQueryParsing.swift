import BikePathAPI
import BikePathCore

/// `GET /v1/routes`'s query text read and checked here, in the HTTP layer: the refusals it
/// answers (`Refusal`) are HTTP's, and the routing layer below takes a checked `RouteQuery`.
extension RouteQuery {
    /// Why a query was refused: its error code and message.
    static func parse(from: String?, to: String?, k: String?) -> Result<RouteQuery, Refusal> {
        guard let a = point(from) else {
            return .failure(Refusal(.badRequest, "bad-point", "from must be LAT,LON in degrees, got \(from ?? "nothing")"))
        }
        guard let b = point(to) else {
            return .failure(Refusal(.badRequest, "bad-point", "to must be LAT,LON in degrees, got \(to ?? "nothing")"))
        }
        let count = k.map { Int($0) ?? 0 } ?? 3
        guard (1...RouteRule.maxRoutes).contains(count) else {
            return .failure(Refusal(.badRequest, "bad-k", "k must be a whole number from 1 to \(RouteRule.maxRoutes), got \(k ?? "")"))
        }
        // The search reads a box between the ends: across ±180° that box would be the world's
        // width. Said as what it is (it was refused as 40,074 km apart).
        guard abs(b.longitude - a.longitude) <= 180 else {
            return .failure(
                Refusal(
                    .badRequest, "across-antimeridian",
                    "origin and destination lie either side of the antimeridian (±180°); routes across it are not searched"))
        }
        let distance = Geodesic.distance(a, b)
        guard distance <= maxDistanceMeters else {
            return .failure(
                Refusal(
                    .badRequest, "too-far",
                    "origin and destination are \(Int(distance / 1000)) km apart; routes are searched up to \(Int(maxDistanceMeters / 1000)) km"
                ))
        }
        return .success(RouteQuery(from: a, to: b, k: count))
    }

    /// `LAT,LON`: two plain decimals (docs/api.yaml's pattern), within range.
    static func point(_ text: String?) -> Coordinate? {
        guard let text else { return nil }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let lat = DecimalText.number(parts[0], exponent: false),
            let lon = DecimalText.number(parts[1], exponent: false),
            (-90...90).contains(lat), (-180...180).contains(lon)
        else { return nil }
        return Coordinate(latitude: lat, longitude: lon)
    }
}
