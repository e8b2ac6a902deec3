import BikePathCore
import Foundation
import Testing
@testable import BikePathReview

/// The pure rendering helpers, without HTTP.
@Suite(.ownThreads) struct RenderingTests {
    let path = [
        Coordinate(latitude: 52.5200, longitude: 13.4000), Coordinate(latitude: 52.5250, longitude: 13.4100),
        Coordinate(latitude: 52.5220, longitude: 13.4200),
    ]

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

    @Test func windowPlotHasATimeAxisAScaleAndTheImpactMarked() throws {
        // 1 s at 100 Hz as the chain stores it: 25 samples before the impact, 75 after,
        // the impact −18 m/s² and the rear wheel's +6 m/s² 0.35 s later.
        var samples = [Float](repeating: 0.5, count: 101)
        samples[25] = -18
        samples[60] = 6
        let plot = WindowPlot(samples: samples, rate: 100, peakIndex: 25, width: 200, height: 60)
        #expect(plot.peak == 18)
        #expect(plot.scale == 20)  // 1, 2, 5 × 10ⁿ: the first that holds 18
        #expect(plot.y(20) == 6 && plot.y(0) == 36 && plot.y(-20) == 66)  // signed, 0 in the middle
        #expect(plot.points.first?.x == 30 && plot.points.last?.x == 230)  // spans the plot area
        let impact = try #require(plot.impact)
        #expect(impact.x == plot.points[25].x && impact.y == plot.points[25].y)
        #expect(abs(impact.y - plot.y(-18)) < 1e-9)  // the mark sits on the peak sample
        #expect(plot.milliseconds(25) == 0 && abs(plot.milliseconds(60) - 350) < 1e-9)
        let ticks = plot.timeTicks
        #expect(ticks.map(\.ms) == [-250, 0, 250, 500, 750])
        #expect(ticks.first { $0.ms == 0 }?.x == impact.x)
        #expect(ticks.first?.x == 30 && ticks.last?.x == 230)
        let svg = plot.svg
        for text in [">−250<", ">0<", ">+750<", ">+20<", ">−20<", "ms from impact", "m/s²", "peak 18.0 m/s²"] {
            #expect(svg.contains(text), "\(text)")
        }
        #expect(svg.components(separatedBy: "class=\"impact\"").count - 1 == 2)  // the line and the dot
    }

    @Test func aQuietWindowStaysFlatAndAnOldWindowIsNotMarked() {
        let quiet = WindowPlot(samples: [0.1, -0.2, 0.1], rate: 100, peakIndex: 1)
        #expect(quiet.scale == 1)  // at least ±1 m/s²: noise is not magnified
        // Stored before the peak was kept (schema < 5): no mark, time from the first sample.
        let old = WindowPlot(samples: [Float](repeating: 1, count: 51), rate: 100)
        #expect(old.impact == nil)
        #expect(old.timeTicks.map(\.ms) == [0, 100, 200, 300, 400, 500])
        #expect(!old.svg.contains("class=\"impact\"") && old.svg.contains("ms from window start"))
        // An index outside the window is not trusted.
        #expect(WindowPlot(samples: [1, 2], rate: 100, peakIndex: 5).impact == nil)
    }
}

@Suite(.ownThreads) struct ReviewAddressTests {
    @Test func addressesParseAndKnowLoopback() {
        #expect(ReviewAddress("127.0.0.1:8080") == ReviewAddress(host: "127.0.0.1", port: 8080))
        #expect(ReviewAddress("[::1]:80")?.isLoopback == true)
        #expect(ReviewAddress("0.0.0.0:8080")?.isLoopback == false)
        for bad in ["8080", ":8080", "host:", "host:70000"] { #expect(ReviewAddress(bad) == nil, "\(bad)") }
    }
}
