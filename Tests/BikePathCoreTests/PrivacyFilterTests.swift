import Testing
@testable import BikePathCore

@Suite struct PrivacyFilterTests {
    // 1e-5 degrees of latitude is 1.11 m.
    static func north(_ meters: Double, from c: Coordinate = Coordinate(latitude: 52.52, longitude: 13.40)) -> Coordinate {
        Coordinate(latitude: c.latitude + meters / 111_195, longitude: c.longitude)
    }

    @Test func zoneDistancesAreEllipsoidal() {
        // One degree of longitude on the WGS84 equator: 6 378 137 m · π / 180 = 111 319.49 m.
        let d = Geodesic.distance(Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: 1))
        #expect(abs(d - 111_319.49) < 0.1)
        #expect(abs(Geodesic.distance(Self.north(0), Self.north(100)) - 100) < 0.5)
    }

    @Test func zoneMembershipIsACircle() {
        let zone = PrivacyZone(name: "home", center: Self.north(0), radiusMeters: 100)
        let f = PrivacyFilter(PrivacySettings(zones: [zone]))
        #expect(f.isInsideZone(Self.north(99)))
        #expect(!f.isInsideZone(Self.north(101)))
        #expect(!PrivacyFilter(PrivacySettings()).isInsideZone(Self.north(0)))
    }

    @Test func trimNeedsBothTimeAndDistanceAtEachEnd() {
        // 1 point per second, 2 m/s: 30 m is reached after 15 s, so time decides at the start.
        let path = (0...300).map { Self.north(Double($0) * 2) }
        let times = (0...300).map(Double.init)
        let f = PrivacyFilter(PrivacySettings(trim: TripTrim(seconds: 30, meters: 30)))
        let w = f.window(path: path, times: times, durationSeconds: 300)
        #expect(w.pathRange == 30..<271)
        // 10 m/s for 10 s: distance decides (30 m after 3 s, but 30 s rule keeps nothing of a 10 s trip).
        let short = (0...10).map { Self.north(Double($0) * 10) }
        #expect(f.window(path: short, times: (0...10).map(Double.init), durationSeconds: 10).pathRange.isEmpty)
    }

    @Test func trimByDistanceWhenSlow() {
        // 0.5 m/s: 30 s covers only 15 m, so the 30 m rule cuts to 60 s.
        let path = (0...600).map { Self.north(Double($0) * 0.5) }
        let w = PrivacyFilter(PrivacySettings()).window(path: path, times: (0...600).map(Double.init), durationSeconds: 600)
        #expect(w.pathRange.lowerBound == 60)
        #expect(w.pathRange.upperBound == 541)
    }

    @Test func estimatedTimesSpreadByDistance() {
        let path = [Self.north(0), Self.north(10), Self.north(30)]
        let t = PrivacyFilter.estimatedTimes(path, durationSeconds: 60)
        #expect(abs(t[1] - 20) < 0.01 && abs(t[2] - 60) < 0.01)
    }

    @Test func itemsNearTheEndsOrInZonesAreNotUploaded() {
        let path = (0...300).map { Self.north(Double($0) * 5) }
        let zone = PrivacyZone(name: "work", center: Self.north(700), radiusMeters: 52)
        let f = PrivacyFilter(PrivacySettings(zones: [zone]))
        let w = f.window(path: path, times: (0...300).map(Double.init), durationSeconds: 300)
        #expect(f.mayUpload(Self.north(400), secondsSinceStart: 80, window: w))
        #expect(!f.mayUpload(Self.north(400), secondsSinceStart: 10, window: w), "inside the first 30 s")
        #expect(!f.mayUpload(Self.north(10), secondsSinceStart: nil, window: w), "within 30 m of the start")
        #expect(!f.mayUpload(Self.north(1490), secondsSinceStart: nil, window: w), "within 30 m of the end")
        #expect(!f.mayUpload(Self.north(720), secondsSinceStart: 144, window: w), "inside the zone")
        let kept = f.uploadablePath(path, window: w)
        #expect(!kept.contains { f.isInsideZone($0) })
        // 30 points go at each end (at 5 m/s the 30 s rule is the stricter one), 21 inside the zone (650-750 m).
        #expect(w.pathRange == 30..<271)
        #expect(kept.count == 241 - 21)
    }

    @Test func consentStartsOffAndSwitchesPerStream() {
        var c = Consent()
        #expect(SyncStream.allCases.allSatisfy { !c.allows($0) })
        c.set(.sos, true)
        #expect(c.allows(.sos) && !c.allows(.tripsAndDrafts) && !c.allows(.livePosition))
    }
}

/// `sync privacy --add-zone` and the configuration file share one radius rule.
@Suite struct PrivacyZoneTextTests {
    @Test("NAME,LAT,LON,RADIUS_M parses, spaces allowed")
    func parses() throws {
        let zone = try #require(PrivacyZone(commaSeparated: " home , 52.52, 13.40 , 150"))
        #expect(zone == PrivacyZone(name: "home", center: Coordinate(latitude: 52.52, longitude: 13.40), radiusMeters: 150))
    }

    @Test(
        "malformed or out of range: refused",
        arguments: [
            "", "home", "home,52.5,13.4", "home,52.5,13.4,150,extra", ",52.5,13.4,150", "home,91,13.4,150",
            "home,52.5,181,150", "home,52.5,13.4,0.5", "home,52.5,13.4,100001", "home,x,13.4,150", "home,52.5,13.4,nan",
        ])
    func refused(_ text: String) {
        #expect(PrivacyZone(commaSeparated: text) == nil)
    }

    @Test("the radius bounds are inclusive")
    func bounds() {
        #expect(PrivacyZone(commaSeparated: "a,0,0,\(PrivacyZone.radiusRange.lowerBound)") != nil)
        #expect(PrivacyZone(commaSeparated: "a,0,0,\(PrivacyZone.radiusRange.upperBound)") != nil)
    }
}
