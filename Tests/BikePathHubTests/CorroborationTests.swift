import BikePathTestSupport
import BikePathCore
import BikePathHub
import Testing

/// The corroboration rule of docs/hub.md, on hand-made reports and passes.
@Suite(.ownThreads) struct CorroborationTests {
    let rule = CorroborationRule()

    func report(_ device: String, _ trip: String, _ kind: String = "pothole", east: Double, north: Double = 0, day: Int? = 20_000) -> ObstacleReport {
        ObstacleReport(device: device, trip: trip, kind: kind, position: Fixtures.at(east: east, north: north), day: day)
    }

    func pass(_ device: String, _ trip: String) -> TripPass {
        TripPass(device: device, trip: trip, path: stride(from: 0.0, through: 400, by: 25).map { Fixtures.at(east: $0) })
    }

    @Test func twoRidersWithinTheRadiusMakeOneCorroboratedSpot() {
        let spots = rule.corroborate(reports: [report("a", "a1", east: 100), report("b", "b1", east: 110, north: 4, day: 20_003)],
                                     passes: [pass("a", "a1"), pass("b", "b1")])
        #expect(spots.count == 1)
        let s = spots[0]
        #expect(s.riders == 2 && s.passesWithoutReport == 0 && s.corroborated)
        #expect(s.confidence == 0.75)  // (2 + 1) / (2 + 0 + 1 + 1)
        #expect(s.firstDay == 20_000 && s.lastDay == 20_003)
        #expect(abs(Geodesic.distance(s.position, Fixtures.at(east: 105, north: 2))) < 0.5, "the spot is the reports' mean")
    }

    /// Long segments are measured against each spot, not walked in 7.5 m steps: a valid path
    /// of four points from pole to pole (3 × ~20,000 km, 8 million steps) took minutes and
    /// stalled every map answer. A long straight segment still counts as a pass.
    @Test func aPathAcrossTheGlobeCostsNoMoreThanItsSpots() {
        let reports = [report("a", "a1", east: 100), report("b", "b1", east: 105)]
        let globe = TripPass(device: "g", trip: "g1", path: [Coordinate(latitude: -90, longitude: -179), Coordinate(latitude: 90, longitude: 179),
                                                             Coordinate(latitude: -90, longitude: 0), Coordinate(latitude: 90, longitude: -90)])
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
        #expect(decayed.confidence == 0.3)  // (2 + 1) / (2 + 6 + 2)
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
        let spots = rule.corroborate(reports: [report("a", "a1", east: 100), report("b", "b1", east: 140),
                                               report("c", "c1", "bump", east: 102), report("d", "d1", "irregularity", east: 101)], passes: [])
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
            TripPass(device: device, trip: trip, path: stride(from: -200.0, through: 0, by: 25).map { Fixtures.at(east: 210, north: $0) }
                + stride(from: 185.0, through: 0, by: -25).map { Fixtures.at(east: $0) })
        }
        let crossings = (1...6).map { crossing("c\($0)", "c\($0)t", east: 210) }
        let spots = rule.corroborate(reports: reports, passes: [pass("a", "a1"), turning("b", "b1"), turning("c", "c1")] + crossings)
        #expect(spots.count == 1)
        #expect(spots[0].passesWithoutReport == 0 && spots[0].corroborated, "\(spots[0])")
        // Silent riders along the street still count against it.
        let along = (1...6).map { pass("d\($0)", "d\($0)t") }
        #expect(rule.corroborate(reports: reports, passes: [pass("a", "a1"), turning("b", "b1"), turning("c", "c1")] + along)[0].passesWithoutReport == 6)
    }

    /// Evidence is counted in trips both ways: two commuters who report a pothole on 6 of
    /// their 10 rides each stand behind it (12 reports, 8 silent passes). Counting riders
    /// one way and trips the other made it 2 against 8, and more riding made it worse.
    @Test func repeatedRidesCountInTripsBothWays() {
        let reports = ["a", "b"].flatMap { d in (1...6).map { report(d, "\(d)\($0)", east: 150 + Double($0)) } }
        let passes = ["a", "b"].flatMap { d in (1...10).map { pass(d, "\(d)\($0)") } }
        let spot = rule.corroborate(reports: reports, passes: passes)
        #expect(spot.count == 1)
        #expect(spot[0].riders == 2 && spot[0].reportingTrips == 12 && spot[0].passesWithoutReport == 8)
        #expect(spot[0].confidence == 13.0 / 22.0 && spot[0].corroborated)
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
    }
}

@Suite(.ownThreads) struct PathStatusTests {
    let rule = PathStatusRule()

    func stretch(_ device: String, east: Double, _ status: PathStatus, length: Double = 100) -> StretchReport {
        StretchReport(device: device, midpoint: Fixtures.at(east: east), lengthMeters: length, status: status)
    }

    @Test func theLengthWeightedMedianOfAllRidersWins() {
        let cells = rule.statuses(stretches: [stretch("a", east: 50, .optimal), stretch("b", east: 50, .optimal, length: 80),
                                              stretch("c", east: 50, .requiresMaintenance, length: 200)], obstacles: [])
        #expect(cells.count == 1)
        // 200 of 380 m are rough: more than half the length, though two of three riders found it smooth.
        #expect(cells[0].status == .requiresMaintenance && cells[0].riders == 3)
    }

    @Test func oneRoughPassAmongSmoothOnesDoesNotCondemnAStreet() {
        let cells = rule.statuses(stretches: [stretch("a", east: 50, .optimal), stretch("b", east: 50, .medium),
                                              stretch("c", east: 50, .requiresMaintenance)], obstacles: [])
        #expect(cells.map(\.status) == [.medium])
    }

    @Test func aCorroboratedObstacleMarksItsCell() {
        let spot = CorroborationRule().corroborate(
            reports: [ObstacleReport(device: "a", trip: "1", kind: "pothole", position: Fixtures.at(east: 50), day: nil),
                      ObstacleReport(device: "b", trip: "2", kind: "pothole", position: Fixtures.at(east: 52), day: nil)], passes: [])
        let cells = rule.statuses(stretches: [stretch("a", east: 50, .optimal), stretch("b", east: 50, .optimal)], obstacles: spot)
        #expect(cells.map(\.status) == [.requiresMaintenance])
    }
}
