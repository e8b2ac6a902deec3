import Foundation
import Testing
@testable import BikePathCore

/// Trip start/stop, auto-pause, statistics and activity on synthetic GNSS rides whose
/// true distance and times are known by construction.
struct TripSegmentationTests {
    static func run(
        _ ride: SyntheticRide, markers: [(Double, Marker)] = [],
        configuration: PipelineConfiguration = .init()
    ) -> [ChainOutput] {
        let records = markers.map { SensorRecord.marker(SampleTime(seconds: $0.0), $0.1) }
        return replay(merge(fixes: ride.fixes(), records: records), configuration: configuration)
    }

    @Test func autoStartAutoPauseAndEndAfterInactivity() throws {
        // 60 s standing, 10 min at 5 m/s, 2 min at a light, 5 min at 5 m/s, 7 min parked.
        let ride = SyntheticRide(profile: [(60, 0), (600, 5), (120, 0), (300, 5), (420, 0)])
        let out = Self.run(ride)
        let trips = out.trips
        #expect(trips.count == 1)
        let trip = try #require(trips.first)
        let s = trip.statistics
        // Starts when cycling started (activity needs a few seconds to settle), not 30 s later.
        #expect(abs(trip.startTime.seconds - 60) < 6)
        // Ends at the last moving fix, 5 min of inactivity later being when it is known.
        #expect(abs(trip.endTime.seconds - 1080) < 6)
        #expect(abs(s.distanceMeters - 4500) / 4500 < 0.02)
        #expect(abs(s.movingSeconds - 900) < 12)
        #expect(abs(s.elapsedSeconds - 1020) < 12)
        #expect(s.movingSeconds < s.elapsedSeconds - 100)
        #expect(abs(s.averageMovingSpeed - 5) < 0.15)
        #expect(abs(s.maxSpeed - 5) < 0.01)
        #expect(abs(s.co2AvoidedGrams - s.distanceMeters / 1000 * 168) < 1e-9)
        // A straight line simplifies to a handful of points within 5 m.
        #expect(trip.path.count >= 2 && trip.path.count < 10)
        let starts = out.tripStarts
        #expect(starts.count == 1)
    }

    @Test func shortRidesDoNotStartTrips() {
        // 20 s of cycling is below the 30 s default; 40 s at 2.2 m/s is below 100 m.
        #expect(Self.run(SyntheticRide(profile: [(10, 0), (20, 5), (200, 0)])).trips.isEmpty)
        #expect(Self.run(SyntheticRide(profile: [(10, 0), (40, 2.2), (200, 0)])).trips.isEmpty)
    }

    @Test func walkingAndCarRacksAreNotCycling() {
        let walk = Self.run(SyntheticRide(profile: [(10, 0), (300, 1.3)]))
        #expect(walk.trips.isEmpty)
        #expect(walk.contains { if case .activity(_, .walking) = $0 { true } else { false } })
        let car = Self.run(SyntheticRide(profile: [(10, 0), (300, 25)]))
        #expect(car.trips.isEmpty)
        #expect(car.contains { if case .activity(_, .motorVehicle) = $0 { true } else { false } })
    }

    @Test func explicitMarkersOverrideAutomaticSegmentation() throws {
        // Started by hand while standing, stopped by hand while still riding.
        let ride = SyntheticRide(profile: [(30, 0), (300, 5), (100, 5)])
        let out = Self.run(ride, markers: [(10, .tripStart), (200, .tripStop)])
        let trips = out.trips
        // The rider keeps riding after stopping: no automatic trip behind their back.
        #expect(trips.count == 1)
        let trip = try #require(trips.first)
        #expect(trip.startTime == SampleTime(seconds: 10))
        #expect(trip.endTime == SampleTime(seconds: 200))
        #expect(abs(trip.statistics.distanceMeters - 170 * 5) / 850 < 0.03)
    }

    @Test func elevationGainIgnoresNoiseButCountsAClimb() throws {
        var flat = SyntheticRide(profile: [(5, 0), (600, 5)])
        flat.altitude = { t in 200 + 3 * ((t * 7).truncatingRemainder(dividingBy: 2) - 1) }  // ±3 m jitter
        let flatTrip = try #require(Self.run(flat).trips.first)
        #expect(flatTrip.statistics.elevationGainMeters == 0)

        var climb = flat
        climb.altitude = { t in 200 + 40 * min(t / 600, 1) + 3 * ((t * 7).truncatingRemainder(dividingBy: 2) - 1) }
        let climbTrip = try #require(Self.run(climb).trips.first)
        #expect(abs(climbTrip.statistics.elevationGainMeters - 40) < 8)
    }

    @Test func implausibleFixesAreRejectedAndCounted() throws {
        let ride = SyntheticRide(profile: [(5, 0), (300, 5)])
        var fixes = ride.fixes()
        // A 2 km jump, a fix with HDOP 30, a repeated (stale) epoch.
        fixes[100].latitude! += 0.018
        fixes[150].hdop = 30
        fixes[200].time = fixes[199].time
        var pipeline = Pipeline()
        var out: [ChainOutput] = []
        for f in fixes { out += pipeline.process(fix: f) }
        out += pipeline.finish()
        let r = pipeline.status.rejectedFixes
        #expect(r.jump == 1 && r.badDOP == 1 && r.stale == 1)
        let trip = try #require(out.trips.first)
        #expect(abs(trip.statistics.distanceMeters - 1500) / 1500 < 0.02)
    }

    @Test func statusReportsTheCurrentState() {
        var pipeline = Pipeline()
        for f in SyntheticRide(profile: [(5, 0), (120, 5)]).fixes() { _ = pipeline.process(fix: f) }
        let status = pipeline.status
        #expect(status.tripPhase == .recording)
        #expect(status.activity == .cycling)
        #expect(status.lastFix != nil)
        #expect((status.tripStatistics?.distanceMeters ?? 0) > 500)
    }

    /// A trip under way has its elapsed time (and average speed, CO₂) so far, not 0 until it
    /// closes: `bikepathd status` shows a riding trip's time so far, never "0.17 km, 0 s".
    @Test func aTripUnderWayHasItsElapsedTimeSoFar() throws {
        var pipeline = Pipeline()
        for f in SyntheticRide(profile: [(5, 0), (120, 5)]).fixes() { _ = pipeline.process(fix: f) }
        let s = try #require(pipeline.status.tripStatistics)
        // The trip opened a few seconds into 120 s of riding; its last fix is at ~125 s.
        #expect(s.elapsedSeconds > 60 && s.elapsedSeconds <= 125, "\(s.elapsedSeconds)")
        #expect(s.movingSeconds <= s.elapsedSeconds)
        #expect(s.averageMovingSpeed > 4 && s.averageMovingSpeed < 6, "\(s.averageMovingSpeed)")
        #expect(s.co2AvoidedGrams > 0)
    }
}

/// At walking pace the IMU decides between pushing the bike and riding slowly.
struct ActivityCadenceTests {
    static func activities(stepping: Bool) -> [ActivityState] {
        let ride = SyntheticRide(profile: [(5, 0), (120, 1.5)])
        let imu = ride.imu(rate: 100, texture: 0.1) { t in
            guard stepping, t >= 5 else { return nil }
            // Footsteps: 1.8 Hz, ±2.5 m/s² vertical.
            let z = 9.81 + 2.5 * Float(sin(2 * Double.pi * 1.8 * t))
            return (Vector3(x: 0, y: 0, z: z), Vector3(x: 0, y: 0, z: 0))
        }
        return replay(merge(fixes: ride.fixes(), records: imu)).compactMap {
            if case .activity(_, let a) = $0 { a } else { nil }
        }
    }

    @Test func stepsMeanWalkingAndSmoothSlowMotionMeansCycling() {
        #expect(Self.activities(stepping: true).last == .walking)
        #expect(Self.activities(stepping: false).last == .cycling)
    }
}
