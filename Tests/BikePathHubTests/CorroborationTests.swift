import BikePathTestSupport
import BikePathCore
import BikePathHub
import Testing

/// The corroboration rule of docs/hub.md, on hand-made reports and passes.
@Suite(.ownThreads) struct CorroborationTests {
    let rule = CorroborationRule()

    func report(_ device: String, _ trip: String, _ kind: String = "pothole", east: Double, north: Double = 0, day: Int? = 20_000)
        -> ObstacleReport
    {
        ObstacleReport(device: device, trip: trip, kind: kind, position: Fixtures.at(east: east, north: north), day: day)
    }

    func pass(_ device: String, _ trip: String) -> TripPass {
        TripPass(device: device, trip: trip, path: stride(from: 0.0, through: 400, by: 25).map { Fixtures.at(east: $0) })
    }

    @Test func twoRidersWithinTheRadiusMakeOneCorroboratedSpot() {
        let spots = rule.corroborate(
            reports: [report("a", "a1", east: 100), report("b", "b1", east: 110, north: 4, day: 20_003)],
            passes: [pass("a", "a1"), pass("b", "b1")])
        #expect(spots.count == 1)
        let s = spots[0]
        #expect(s.riders == 2 && s.passesWithoutReport == 0 && s.corroborated)
        #expect(abs(s.confidence - 6.25 / 7.25) < 1e-12)  // odds 2.5 × 2.5: each report multiplies them by 0.5 / 0.2
        #expect(s.firstDay == 20_000 && s.lastDay == 20_003)
        #expect(abs(Geodesic.distance(s.position, Fixtures.at(east: 105, north: 2))) < 0.5, "the spot is the reports' mean")
    }

    /// Long segments are measured against each spot, not walked in 7.5 m steps: a valid path
    /// of four points from pole to pole (3 × ~20,000 km, 8 million steps) took minutes and
    /// stalled every map answer. A long straight segment still counts as a pass.
    @Test func aPathAcrossTheGlobeCostsNoMoreThanItsSpots() {
        let reports = [report("a", "a1", east: 100), report("b", "b1", east: 105)]
        let globe = TripPass(
            device: "g", trip: "g1",
            path: [
                Coordinate(latitude: -90, longitude: -179), Coordinate(latitude: 90, longitude: 179),
                Coordinate(latitude: -90, longitude: 0), Coordinate(latitude: 90, longitude: -90),
            ])
        // A straight road of 2 km simplified to its two ends, through the spot.
        let straight = TripPass(device: "c", trip: "c1", path: [Fixtures.at(east: -900), Fixtures.at(east: 1100)])
        let clock = ContinuousClock()
        var spots: [ReportedObstacle] = []
        let elapsed = clock.measure {
            spots = rule.corroborate(reports: reports, passes: [pass("a", "a1"), pass("b", "b1"), globe, straight])
        }
        #expect(elapsed < .seconds(1), "\(elapsed)")
        #expect(spots.count == 1 && spots[0].passesWithoutReport == 1, "the straight road passes the spot, the globe's path does not")
    }

    @Test func oneDeviceAloneNeverCorroborates() {
        let reports = (1...6).map { report("a", "a\($0)", east: 100 + Double($0)) }
        let spots = rule.corroborate(reports: reports, passes: (1...6).map { pass("a", "a\($0)") })
        #expect(spots.count == 1 && spots[0].riders == 1 && !spots[0].corroborated)
    }

    @Test func ridersPassingWithoutReportingLowerTheConfidence() {
        let reports = [report("a", "a1", east: 200), report("b", "b1", east: 205)]
        let silent = (1...6).map { pass("c\($0)", "c\($0)t") }
        let fresh = rule.corroborate(reports: reports, passes: [pass("a", "a1"), pass("b", "b1")])[0]
        let decayed = rule.corroborate(reports: reports, passes: [pass("a", "a1"), pass("b", "b1")] + silent)[0]
        #expect(decayed.passesWithoutReport == 6)
        let odds = (1...6).reduce(6.25) { v, _ in v * 0.625 }  // each silent ride multiplies the odds by 0.5 / 0.8
        #expect(abs(decayed.confidence - odds / (1 + odds)) < 1e-12 && decayed.confidence < 0.3)
        #expect(fresh.corroborated && !decayed.corroborated)
        // A trip that stays 60 m away is no observation.
        let far = TripPass(device: "d", trip: "d1", path: [Fixtures.at(east: 0, north: 60), Fixtures.at(east: 400, north: 60)])
        #expect(rule.corroborate(reports: reports, passes: [far])[0].passesWithoutReport == 0)
    }

    @Test func moreRidersRaiseTheConfidence() {
        let c = (1...5).map { rule.confidence(reports: $0, misses: 2) }
        #expect(zip(c, c.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func distantOrIncompatibleReportsStayApart() {
        let spots = rule.corroborate(
            reports: [
                report("a", "a1", east: 100), report("b", "b1", east: 140),
                report("c", "c1", "bump", east: 102), report("d", "d1", "irregularity", east: 101),
            ], passes: [])
        #expect(spots.count == 3)
        // The catch-all kind joins one compatible spot, which the specific kind names; the
        // pothole and the bump 2 m apart never share a spot, and 40 m apart is another spot.
        #expect(spots.map(\.riders).reduce(0, +) == 4)
        #expect(spots.allSatisfy { $0.kind != "irregularity" })
        #expect(spots.filter { $0.kind == "pothole" }.count == 2 && spots.filter { $0.kind == "bump" }.count == 1)
        #expect(spots.contains { $0.riders == 2 })
    }

    /// Trips along a street, east to west (the `pass` fixture), or north to south at `east`.
    func crossing(_ device: String, _ trip: String, east: Double) -> TripPass {
        TripPass(device: device, trip: trip, path: stride(from: -200.0, through: 200, by: 25).map { Fixtures.at(east: east, north: $0) })
    }

    /// Riders on the crossing street 10 m away never had the chance to hit it: no evidence
    /// either way (1 of 21 obstacles near crossings was found when they counted against it).
    @Test func crossingStreetPassesAreNoEvidence() {
        let reports = [report("a", "a1", east: 200), report("b", "b1", east: 203)]
        let crossings = (1...6).map { crossing("c\($0)", "c\($0)t", east: 210) }
        let along = (1...6).map { pass("d\($0)", "d\($0)t") }
        let base = [pass("a", "a1"), pass("b", "b1")]
        #expect(rule.corroborate(reports: reports, passes: base + crossings)[0].passesWithoutReport == 0)
        #expect(rule.corroborate(reports: reports, passes: base + along)[0].passesWithoutReport == 6)
    }

    /// Reporting trips that came along the crossing street and turned at the crossing 10 m
    /// from the spot still rode over it along its street. Their first stretch within 30 m
    /// is on the crossing street (the spot projects onto it at the crossing): taking that as
    /// their direction made the street unknown and every rider on the crossing street a
    /// silent pass (here 3 reports against 6 crossing passes: confidence 0.36).
    @Test func tripsTurningAtTheCrossingStillRodeAlongTheStreet() {
        let reports = [report("a", "a1", east: 199), report("b", "b1", east: 201, north: 1), report("c", "c1", east: 200, north: -1)]
        // From the south along the crossing street (east 210), then west over the spot.
        func turning(_ device: String, _ trip: String) -> TripPass {
            TripPass(
                device: device, trip: trip,
                path: stride(from: -200.0, through: 0, by: 25).map { Fixtures.at(east: 210, north: $0) }
                    + stride(from: 185.0, through: 0, by: -25).map { Fixtures.at(east: $0) })
        }
        let crossings = (1...6).map { crossing("c\($0)", "c\($0)t", east: 210) }
        let spots = rule.corroborate(reports: reports, passes: [pass("a", "a1"), turning("b", "b1"), turning("c", "c1")] + crossings)
        #expect(spots.count == 1)
        #expect(spots[0].passesWithoutReport == 0 && spots[0].corroborated, "\(spots[0])")
        // Silent riders along the street still count against it.
        let along = (1...6).map { pass("d\($0)", "d\($0)t") }
        #expect(
            rule.corroborate(reports: reports, passes: [pass("a", "a1"), turning("b", "b1"), turning("c", "c1")] + along)[0]
                .passesWithoutReport == 6)
    }

    /// Evidence is counted in rides both ways: two commuters who report a pothole on 6 of
    /// their 10 rides each stand behind it (12 reports, 8 silent rides). Counting riders
    /// one way and trips the other made it 2 against 8, and more riding made it worse.
    @Test func repeatedRidesCountInTripsBothWays() {
        let reports = ["a", "b"].flatMap { d in (1...6).map { report(d, "\(d)\($0)", east: 150 + Double($0)) } }
        let passes = ["a", "b"].flatMap { d in (1...10).map { pass(d, "\(d)\($0)") } }
        let spot = rule.corroborate(reports: reports, passes: passes)
        #expect(spot.count == 1)
        #expect(spot[0].riders == 2 && spot[0].reportingTrips == 12 && spot[0].passesWithoutReport == 8)
        #expect(spot[0].confidence > 0.99 && spot[0].corroborated)
    }

    /// Two obstacles 13 m apart, one on each street of a crossing, are two spots, each judged
    /// by the riders of its own street: a report belongs with those made riding the same
    /// way. As one spot, its street was unknown (its riders rode both ways) and every rider
    /// of either street counted against it.
    @Test func obstaclesOnTheTwoStreetsOfACrossingAreTwoSpots() {
        // The crossing street runs north at east 200; one pothole at 190 east on the street
        // along the fixture `pass`, one 8 m north of the crossing on the crossing street.
        let reports =
            (1...3).map { report("e\($0)", "e\($0)t", east: 190 + Double($0) - 2) }
            + (1...3).map { report("n\($0)", "n\($0)t", east: 200 + Double($0) - 2, north: 8) }
        let passes =
            (1...3).map { pass("e\($0)", "e\($0)t") } + (1...3).map { crossing("n\($0)", "n\($0)t", east: 200) }
            + (1...2).map { pass("se\($0)", "se\($0)t") } + (1...2).map { crossing("sn\($0)", "sn\($0)t", east: 200) }
        let spots = rule.corroborate(reports: reports, passes: passes)
        #expect(spots.count == 2, "\(spots)")
        #expect(spots.allSatisfy { $0.riders == 3 && $0.passesWithoutReport == 2 && $0.corroborated }, "\(spots)")
        #expect(spots.contains { Geodesic.distance($0.position, Fixtures.at(east: 190)) < 3 })
        #expect(spots.contains { Geodesic.distance($0.position, Fixtures.at(east: 200, north: 8)) < 3 })
    }

    /// A ride over the spot is one chance to report it, however the rides are grouped into
    /// trips: a trip out and back along the street rode over it twice. Counted once per trip,
    /// a false source that one ride in seven reports was reported on half the trips of
    /// riders who rode back and forth over it (3 false spots of the city at 1×, seed 1).
    @Test func anOutAndBackTripRidesOverTheSpotTwice() {
        func outAndBack(_ device: String, _ trip: String) -> TripPass {
            TripPass(
                device: device, trip: trip,
                path: (stride(from: 0.0, through: 400, by: 25).map { $0 } + stride(from: 375.0, through: 0, by: -25).map { $0 })
                    .map { Fixtures.at(east: $0) })
        }
        let reports = [report("a", "a1", east: 200), report("b", "b1", east: 203)]
        #expect(
            rule.corroborate(reports: reports, passes: [pass("a", "a1"), pass("b", "b1"), outAndBack("c", "c1")])[0].passesWithoutReport
                == 2)
        // A reporting trip out and back reported it on one ride of two.
        #expect(rule.corroborate(reports: reports, passes: [pass("a", "a1"), outAndBack("b", "b1")])[0].passesWithoutReport == 1)
    }

    /// The test is between two report rates, an obstacle's (about half the rides over it)
    /// and a false source's (up to one ride in five): an obstacle reported on 4 of 10 rides
    /// is one (the old threshold, a Beta(1, 1) mean of 0.5, missed it at 5 / 12: it expected
    /// four reports in five rides, and missed one obstacle in ten at 1×), a manhole cover
    /// reported on 2 of 12 is not.
    @Test func theReportRateDecidesBetweenAnObstacleAndAFalseSource() {
        let obstacle = rule.corroborate(
            reports: (1...4).map { report("r\($0)", "t\($0)", east: 200 + Double($0)) },
            passes: (1...10).map { pass("r\($0)", "t\($0)") })
        #expect(obstacle.count == 1 && obstacle[0].passesWithoutReport == 6 && obstacle[0].corroborated, "\(obstacle)")
        let manhole = rule.corroborate(
            reports: (1...2).map { report("r\($0)", "t\($0)", east: 200 + Double($0)) },
            passes: (1...12).map { pass("r\($0)", "t\($0)") })
        #expect(manhole.count == 1 && manhole[0].passesWithoutReport == 10 && !manhole[0].corroborated, "\(manhole)")
        #expect(abs(rule.confidence(reports: 34, misses: 66) - 0.5) < 0.05, "even odds at a report rate of about 0.34")
    }

    /// Reports of one obstacle spread 24 m along the street by GNSS error make one spot:
    /// anchored on the southernmost report, the northern ones made a second spot of their own.
    @Test func oneObstaclesSpreadReportsAreOneSpot() {
        let reports = [-12.0, -6, 0, 6, 12].enumerated().map { i, north in report("r\(i)", "t\(i)", east: 100, north: north) }
        let spots = rule.corroborate(reports: reports, passes: [])
        #expect(spots.count == 1 && spots[0].riders == 5, "\(spots.map(\.riders))")
    }

    @Test func theOrderOfInputDoesNotChangeTheMap() {
        let reports: [ObstacleReport] = (0..<30).map { (i: Int) -> ObstacleReport in
            let kind = i % 3 == 0 ? "bump" : "pothole"
            return report("d\(i % 7)", "t\(i)", kind, east: Double(i * 13 % 300), north: Double(i % 5))
        }
        #expect(rule.corroborate(reports: reports, passes: []) == rule.corroborate(reports: reports.reversed(), passes: []))
        // With paths: each report's direction, the streets and the rides over each spot.
        let passes =
            (0..<30).map { i in i % 4 == 0 ? crossing("d\(i % 7)", "t\(i)", east: Double(i * 13 % 300)) : pass("d\(i % 7)", "t\(i)") }
            + (0..<5).map { pass("s\($0)", "s\($0)t") }
        let map = rule.corroborate(reports: reports, passes: passes)
        #expect(map == rule.corroborate(reports: reports.reversed(), passes: passes.reversed()))
        #expect(map.contains { $0.passesWithoutReport > 0 })
    }
}

@Suite(.ownThreads) struct PathStatusTests {
    let rule = PathStatusRule()

    func stretch(_ device: String, east: Double, _ status: PathStatus, length: Double = 100) -> StretchReport {
        StretchReport(device: device, midpoint: Fixtures.at(east: east), lengthMeters: length, status: status)
    }

    @Test func theLengthWeightedMedianOfAllRidersWins() {
        let cells = rule.statuses(
            stretches: [
                stretch("a", east: 50, .optimal), stretch("b", east: 50, .optimal, length: 80),
                stretch("c", east: 50, .requiresMaintenance, length: 200),
            ], obstacles: [])
        #expect(cells.count == 1)
        // 200 of 380 m are rough: more than half the length, though two of three riders found it smooth.
        #expect(cells[0].status == .requiresMaintenance && cells[0].riders == 3)
    }

    @Test func oneRoughPassAmongSmoothOnesDoesNotCondemnAStreet() {
        let cells = rule.statuses(
            stretches: [
                stretch("a", east: 50, .optimal), stretch("b", east: 50, .medium),
                stretch("c", east: 50, .requiresMaintenance),
            ], obstacles: [])
        #expect(cells.map(\.status) == [.medium])
    }

    @Test func aCorroboratedObstacleMarksItsCell() {
        let spot = CorroborationRule().corroborate(
            reports: [
                ObstacleReport(device: "a", trip: "1", kind: "pothole", position: Fixtures.at(east: 50), day: nil),
                ObstacleReport(device: "b", trip: "2", kind: "pothole", position: Fixtures.at(east: 52), day: nil),
            ], passes: [])
        let cells = rule.statuses(stretches: [stretch("a", east: 50, .optimal), stretch("b", east: 50, .optimal)], obstacles: spot)
        #expect(cells.map(\.status) == [.requiresMaintenance])
    }
}
