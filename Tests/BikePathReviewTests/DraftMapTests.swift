import BikePathCore
import BikePathStore
import BikePathTestSupport
import Foundation
import Testing
@testable import BikePathReview

/// The draft map's end square leaves the "50 m" scale label readable, and a road-quality stretch
/// stays on the drawn path. Both checked on the SVG the page draws.
@Suite(.ownThreads) struct DraftMapTests {
    /// A real draft (synthetic ride through the store), its path and stretches replaced by `path` and `stretches`.
    private func draft(path: [Coordinate], stretches: [RoadQualitySegment]) async throws -> DraftDocument {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir, trips: 1, seconds: 120)
        var d = try await store.draft(try await store.listDrafts()[0].id)
        d.path = path
        d.roadQuality = stretches
        d.obstacles = []
        return d
    }

    private func stretch(_ start: Coordinate, _ end: Coordinate) -> RoadQualitySegment {
        RoadQualitySegment(
            startTime: SampleTime(nanoseconds: 0), endTime: SampleTime(nanoseconds: 1), start: start, end: end, lengthMeters: 100,
            roughness: 1, status: .sufficient)
    }

    /// Canvas distance from (x, y) to the polyline `points`.
    private func distance(_ x: Double, _ y: Double, to points: [(x: Double, y: Double)]) -> Double {
        zip(points, points.dropFirst()).map { a, b in
            let dx = b.x - a.x, dy = b.y - a.y, l = dx * dx + dy * dy
            let t = l == 0 ? 0 : min(1, max(0, ((x - a.x) * dx + (y - a.y) * dy) / l))
            return hypot(a.x + t * dx - x, a.y + t * dy - y)
        }.min() ?? .infinity
    }

    private func polylines(_ svg: String) -> [(width: String, points: [(x: Double, y: Double)])] {
        svg.components(separatedBy: "<polyline").dropFirst().map { element in
            let width = element.components(separatedBy: "stroke-width=\"")[1].prefix { $0 != "\"" }
            let points = element.components(separatedBy: "points=\"")[1].prefix { $0 != "\"" }.split(separator: " ").map {
                let xy = $0.split(separator: ",").map { Double($0)! }
                return (x: xy[0], y: xy[1])
            }
            return (String(width), points)
        }
    }

    @Test("every road-quality stretch is drawn on the path: ends measured beside it, and a loop, stay on it")
    func stretchesStayOnThePath() async throws {
        // A loop: out east, north, back west past the start. The second stretch's end lies nearest an early vertex.
        let path = [
            Coordinate(latitude: 51.5000, longitude: -0.1000), Coordinate(latitude: 51.5000, longitude: -0.0970),
            Coordinate(latitude: 51.5010, longitude: -0.0970), Coordinate(latitude: 51.5010, longitude: -0.1000),
            Coordinate(latitude: 51.5002, longitude: -0.1003),
        ]
        let beside = [
            // Measured 8 m south of the first leg.
            stretch(Coordinate(latitude: 51.49993, longitude: -0.0995), Coordinate(latitude: 51.49993, longitude: -0.0980)),
            // From the way back to the loop's end, which lies next to the start.
            stretch(Coordinate(latitude: 51.5010, longitude: -0.0990), Coordinate(latitude: 51.5002, longitude: -0.1003)),
        ]
        let d = try await draft(path: path, stretches: beside)
        let lines = polylines(DraftMap(d, shown: []).svg(links: true))
        let drawn = try #require(lines.first { $0.width == "3" }).points
        let coloured = lines.filter { $0.width == "6" }
        #expect(coloured.count == 2)
        for line in coloured {
            for q in line.points { #expect(distance(q.x, q.y, to: drawn) < 0.6, "(\(q.x), \(q.y)) is off the path") }
        }
        // The loop's stretch runs along the way back, not straight across to the start.
        #expect(coloured[1].points.count >= 3)
    }

    @Test("the scale label moves to a corner no marker covers: the end square no longer sits on \"50 m\"")
    func scaleLabelIsClear() async throws {
        // A ride that ends at the bottom-left corner, where the scale bar used to be.
        let path = [
            Coordinate(latitude: 51.5030, longitude: -0.0950), Coordinate(latitude: 51.5010, longitude: -0.0980),
            Coordinate(latitude: 51.5000, longitude: -0.1000),
        ]
        let d = try await draft(path: path, stretches: [])
        let svg = DraftMap(d, shown: []).svg(links: true)
        func number(_ text: Substring, _ key: String) -> Double {
            Double(text.components(separatedBy: "\(key)=\"")[1].prefix { $0 != "\"" })!
        }
        let end = try #require(svg.components(separatedBy: "<rect class=\"end\"").dropFirst().first.map { Substring($0) })
        let endBox = (x: number(end, "x"), y: number(end, "y"), size: 11.0)
        // The scale label: the text that is a length ("50 m", "1 km").
        let text = try #require(
            svg.components(separatedBy: "<text").dropFirst().map { Substring($0) }.first {
                let content = $0.components(separatedBy: ">")[1].prefix { $0 != "<" }
                return content.hasSuffix(" m") || content.hasSuffix(" km")
            })
        // The label: from its baseline 10 px up, about 6 px a character wide.
        let labelText = text.components(separatedBy: ">")[1].prefix { $0 != "<" }
        let label = (x: number(text, "x"), y: number(text, "y") - 10, width: Double(labelText.count) * 6, height: 12.0)
        let overlaps =
            endBox.x < label.x + label.width && label.x < endBox.x + endBox.size && endBox.y < label.y + label.height
            && label.y < endBox.y + endBox.size
        #expect(!overlaps, "end square \(endBox) covers the label \(labelText) at \(label)")
    }
}
