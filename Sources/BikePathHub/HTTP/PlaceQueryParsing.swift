import BikePathCore

/// `GET /v1/places`'s query, read and checked in the HTTP layer as `RouteQuery` is.
struct PlaceQuery: Sendable, Equatable {
    var text: String
    var near: Coordinate?
    var limit: Int

    static func parse(q: String?, near: String?, limit: String?) -> Result<PlaceQuery, Refusal> {
        let text = q ?? ""
        // Counted as JSON Schema's maxLength counts (code points), so docs/api.yaml's bounds hold.
        let length = text.unicodeScalars.count
        guard PlaceSearch.queryLength.contains(length) else {
            let range = PlaceSearch.queryLength
            return .failure(
                Refusal(
                    .badRequest, "bad-query",
                    "q must be a name of \(range.lowerBound) to \(range.upperBound) characters, got \(length)"))
        }
        var point: Coordinate?
        if let near {
            guard let p = RouteQuery.point(near) else {
                return .failure(Refusal(.badRequest, "bad-point", "near must be LAT,LON in degrees, got \(near)"))
            }
            point = p
        }
        let range = PlaceSearch.limits.range
        let count = limit.map { Int($0) ?? 0 } ?? PlaceSearch.limits.default
        guard range.contains(count) else {
            return .failure(
                Refusal(
                    .badRequest, "bad-limit",
                    "limit must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(limit ?? "")"
                ))
        }
        return .success(PlaceQuery(text: text, near: point, limit: count))
    }
}
