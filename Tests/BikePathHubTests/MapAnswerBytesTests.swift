import BikePathAPI
import BikePathCore
import BikePathFixtures
import BikePathTestSupport
import Foundation
import Testing

@testable import BikePathHub

/// Every map answer is written by `CanonicalJSONEncoder` (`FeatureCollection.encoded`) and
/// must have exactly the bytes `WireJSON.encode` (Foundation's `JSONEncoder`, sorted keys,
/// canonical zeros) gives: the obstacles, path status and heatmap of the simulated city,
/// and the routes over the grid city.
@Suite(.ownThreads) struct MapAnswerBytesTests {
    @Test func obstaclesStatusAndHeatmapHaveJSONEncodersBytes() throws {
        let city = CitySimulation.generate(riders: 16, rides: 6, seed: 20)
        let map = SharedMap.build(confirmations: city.confirmations.map { ConfirmedRecord(device: $0.device, body: $0.body) })
        let box = BoundingBox(
            west: CitySimulation.origin.longitude - 0.05, south: CitySimulation.origin.latitude - 0.05,
            east: CitySimulation.at(4_000, 0).longitude + 0.05, north: CitySimulation.at(0, 4_000).latitude + 0.05)
        let obstacles = map.obstaclesGeoJSON(in: box)
        let status = map.statusGeoJSON(in: box)
        let heat = map.heatmapGeoJSON(in: box, grid: MapGrid(cellMeters: 250))
        #expect(obstacles.features.count > 5 && status.features.count > 100 && heat.features.count > 10, "answers to compare")
        #expect(try obstacles.encoded() == WireJSON.encode(obstacles))
        #expect(try status.encoded() == WireJSON.encode(status))
        #expect(try heat.encoded() == WireJSON.encode(heat))
        let empty = map.obstaclesGeoJSON(in: BoundingBox(west: 0, south: 0, east: 0.001, north: 0.001))
        #expect(try empty.encoded() == WireJSON.encode(empty))
    }

    /// The answers' days (`firstSeen`, `lastSeen`) are written by calendar arithmetic; they
    /// must be what Foundation's formatter, which wrote them before, gives: every day from
    /// 1900 to 2200, and leap days and century ends among them.
    @Test func daysAreFoundationsDates() {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        var wrong: [String] = []
        for d in -25_567...84_000 {
            let foundation = f.string(from: Date(timeIntervalSince1970: Double(d) * 86_400))
            if SharedMap.day(d) != foundation { wrong.append("\(d): \(SharedMap.day(d) ?? "nil") != \(foundation)") }
        }
        #expect(wrong.isEmpty, "\(wrong.count) days differ, first: \(wrong.first ?? "")")
        #expect(SharedMap.day(11_016) == "2000-02-29" && SharedMap.day(nil) == nil)
    }

    @Test(.timeLimitOnceRunning(.minutes(3))) func routesHaveJSONEncodersBytes() async throws {
        try await RouteTests.withCity(.sqlite) { store in
            let search = RouteSearch()
            let (from, to) = (RouteTests.origin, RouteTests.destination)
            let routes = try await search.routes(
                from: from, to: to, k: 3, on: try await store.routingGraph(in: search.rule.searchBox(from, to), minRiders: 2))
            let spots = SharedMap.build(confirmations: RouteTests.city.map { ConfirmedRecord(device: $0.device, body: $0.body) })
                .obstacles
            let answer = Route.geoJSON(routes, spots: spots, radiusMeters: CorroborationRule().radiusMeters)
            #expect(answer.features.count >= 2)
            #expect(try answer.encoded() == WireJSON.encode(answer))
        }
    }
}
