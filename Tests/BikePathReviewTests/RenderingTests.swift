import BikePathCore
import Foundation
import Testing
@testable import BikePathReview

/// The pure rendering helpers, without HTTP.
@Suite struct RenderingTests {
    let path = [Coordinate(latitude: 52.5200, longitude: 13.4000), Coordinate(latitude: 52.5250, longitude: 13.4100),
                Coordinate(latitude: 52.5220, longitude: 13.4200)]

    @Test func projectionIsToScaleAndInvertible() {
        let p = PathProjection(fitting: path, width: 360, maxHeight: 420, margin: 16)
        // The path fills the width between the margins: west end at 16, east end at 344.
        #expect(abs(p.point(path[0]).x - 16) < 1e-6 && abs(p.point(path[2]).x - 344) < 1e-6)
        // One metre east and one metre north are the same length on the canvas (within 0.5 %).
        let east = Coordinate(latitude: 52.52, longitude: 13.40 + 1 / (111_320 * cos(52.5225 * .pi / 180)))
        let north = Coordinate(latitude: 52.52 + 1 / 111_132.0, longitude: 13.40)
        let dx = p.point(east).x - p.point(path[0]).x, dy = p.point(path[0]).y - p.point(north).y
        #expect(abs(dx / dy - 1) < 0.005)
        #expect(p.point(path[1]).y < p.point(path[0]).y)  // north is up
        for c in path {
            let q = p.point(c)
            let back = p.coordinate(x: q.x, y: q.y)
            #expect(abs(back.latitude - c.latitude) < 1e-9 && abs(back.longitude - c.longitude) < 1e-9)
        }
        #expect([1.0, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000].contains(p.scaleBarMetres))
        #expect(p.scaleBarMetres * p.scale <= p.width / 5)
    }

    @Test func aTapSnapsToTheNearestPointOfThePath() throws {
        let p = PathProjection(fitting: path)
        let a = p.point(path[0]), b = p.point(path[1])
        let mid = ((a.x + b.x) / 2, (a.y + b.y) / 2)
        let hit = try #require(p.nearestOnPath(path, x: mid.0 + 3, y: mid.1))
        #expect(hit.distance < 3)
        #expect(abs(hit.coordinate.latitude - 52.5225) < 0.0002 && abs(hit.coordinate.longitude - 13.405) < 0.0003)
        #expect(p.nearestOnPath([], x: 0, y: 0) == nil)
    }

    @Test func windowPlotSpansTheWidthAndScalesToThePeak() {
        let plot = WindowPlot(samples: [0, -2, 4, 1], rate: 100, width: 160, height: 48)
        #expect(plot.peak == 4)
        let xs: [Double] = plot.points.map(\.x), ys: [Double] = plot.points.map(\.y)
        let wantedX: [Double] = [0, 160.0 / 3, 320.0 / 3, 160], wantedY: [Double] = [48, 24, 0, 36]
        #expect(xs == wantedX)
        #expect(ys == wantedY)  // |a| up from the bottom, the peak at the top
        #expect(plot.svg.contains("4 samples") == false)
        #expect(plot.svg.contains("0.0 s, peak 4.0 m/s²"))  // 4 samples at 100 Hz
        #expect(WindowPlot(samples: [0.1, 0.2], rate: 100).peak == 1)  // a quiet window stays low
    }
}

@Suite struct ReviewAddressTests {
    @Test func addressesParseAndKnowLoopback() {
        #expect(ReviewAddress("127.0.0.1:8080") == ReviewAddress(host: "127.0.0.1", port: 8080))
        #expect(ReviewAddress("[::1]:80")?.isLoopback == true)
        #expect(ReviewAddress("0.0.0.0:8080")?.isLoopback == false)
        for bad in ["8080", ":8080", "host:", "host:70000"] { #expect(ReviewAddress(bad) == nil, "\(bad)") }
    }
}
