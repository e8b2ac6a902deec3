/// What a status display shows: trip phase, activity, last fix and the running trip.
public struct PipelineStatus: Sendable, Equatable {
    public var tripPhase: TripPhase
    public var activity: ActivityState?
    public var lastFix: GNSSFix?
    public var tripStatistics: TripStatistics?
    public var rejectedFixes: FixRejections
    /// IMU samples dropped: non-finite values, or a time not after the previous sample.
    public var rejectedIMUSamples: Int
}

/// The filter chain: decode → clean/fuse → detect → segment → summarise.
///
/// Pure and driven by sample time: the same records give the same outputs, whatever the
/// batch sizes. Outputs are appended in the order they become known; each carries its
/// own sample time (an obstacle is emitted once the fix after it gives its position).
public struct Pipeline: Sendable {
    public let configuration: PipelineConfiguration
    var decoder = NMEADecoder()
    var cleaner: FixCleaner
    var gravity: GravityEstimator
    var detector: ObstacleDetector
    var judge: CandidateJudge
    var judged: [JudgedCandidate] = []
    var activity: ActivityClassifier
    var trips: TripSegmenter
    var roadQuality: RoadQualityEstimator
    var crash: CrashDetector
    var window: VerticalRing
    var lastIMUTime: SampleTime?
    /// IMU samples dropped for non-finite values or time going backwards.
    var rejectedIMUSamples = 0
    var meanIMUInterval: Double = 0
    var imuRate: Double { meanIMUInterval > 0 ? 1 / meanIMUInterval : 0 }
    /// The receiver's latest report, accepted or not (what a status display shows).
    var lastRawFix: GNSSFix?
    /// The latest fix that passed cleaning (what an SOS carries).
    var lastAcceptedFix: GNSSFix?
    var lastClean: CleanFix?
    var previousClean: CleanFix?
    var pendingObstacles: [ObstacleEvent] = []
    /// Recent cleaned fixes: a candidate is judged `contextSeconds` after its hit, so its
    /// position is interpolated between the fixes around the hit, not the latest ones.
    var recentFixes: [CleanFix] = []
    /// Obstacles found while cycling towards a trip: emitted once it starts (it is dated
    /// back to where the cycling began), dropped if the cycling never becomes a trip.
    var heldObstacles: [ObstacleEvent] = []
    var lastObstacle: ObstacleEvent?
    var fixScratch: [GNSSFix] = []

    /// Creates a chain in its initial state (no trip, no fix).
    public init(configuration: PipelineConfiguration = .init()) {
        self.configuration = configuration
        cleaner = FixCleaner(configuration: configuration)
        gravity = GravityEstimator(
            tauWithGyro: configuration.gravityTimeConstantWithGyro,
            tauWithoutGyro: configuration.gravityTimeConstantWithoutGyro)
        detector = ObstacleDetector(configuration: configuration.obstacle)
        judge = CandidateJudge(configuration: configuration.obstacle)
        activity = ActivityClassifier(configuration: configuration)
        trips = TripSegmenter(configuration: configuration)
        roadQuality = RoadQualityEstimator(
            stretchMeters: configuration.roadQualityStretchMeters,
            thresholds: configuration.roadQuality)
        crash = CrashDetector(configuration: configuration.crash)
        // Room for an SOS review window (1 s before the impact + up to 5 s to the alarm) at 1 kHz.
        window = VerticalRing(capacity: 8192)
    }

    public var status: PipelineStatus {
        PipelineStatus(
            tripPhase: trips.phase, activity: activity.current, lastFix: lastRawFix,
            tripStatistics: trips.statistics, rejectedFixes: cleaner.rejections,
            rejectedIMUSamples: rejectedIMUSamples)
    }

    /// Processes a batch of records in order.
    public mutating func process(_ records: some Collection<SensorRecord>) -> [ChainOutput] {
        var out: [ChainOutput] = []
        out.reserveCapacity(32)  // a second of 10 Hz track points without regrowing
        // One generic call per batch, then a loop the compiler specialises: iterating an
        // unspecialised Collection from another module costs a witness call per sample.
        let done: Void? = records.withContiguousStorageIfAvailable { process(buffer: $0, into: &out) }
        if done == nil { process(buffer: Array(records), into: &out) }
        return out
    }

    mutating func process(buffer records: some Collection<SensorRecord>, into out: inout [ChainOutput]) {
        for record in records {
            switch record {
            case .imu(let sample):
                process(imu: sample, into: &out)
            case .nmea(let time, let sentence):
                fixScratch.removeAll(keepingCapacity: true)
                var s = sentence
                s.withUTF8 { decoder.decode(sentence: UnsafeRawBufferPointer($0), receivedAt: time, into: &fixScratch) }
                for fix in fixScratch { process(fix: fix, into: &out) }
            case .marker(let time, let marker):
                resolvePendingObstacles(upTo: nil, into: &out)
                trips.marker(marker, at: time, into: &out)
                if marker == .tripStop { roadQuality.reset() }
                refreshHotState()
            case .label(let time, let kind):
                // The rider's own report: positioned at the next fix like a detection, never
                // merged into one, full confidence (the rider saw it).
                pendingObstacles.append(
                    ObstacleEvent(
                        time: time, kind: kind, peak: 0, energy: 0,
                        source: .rider, severity: 0, confidence: 1))
            }
        }
    }

    /// Flushes what is still open at the end of input: the decoder's last epoch, pending
    /// obstacles and the open trip.
    public mutating func finish() -> [ChainOutput] {
        var out: [ChainOutput] = []
        for fix in decoder.finish() { process(fix: fix, into: &out) }
        // Candidates still waiting for their context are judged on what there is.
        judgePending(flush: true, now: lastIMUTime, dt: Float(meanIMUInterval > 0 ? meanIMUInterval : 0.005))
        resolvePendingObstacles(upTo: nil, into: &out)
        trips.finish(into: &out)
        refreshHotState()
        return out
    }

    /// Feeds an already decoded fix (gpsd TPV, an importer, a test).
    public mutating func process(fix: GNSSFix) -> [ChainOutput] {
        var out: [ChainOutput] = []
        process(fix: fix, into: &out)
        return out
    }

    mutating func process(fix raw: GNSSFix, into out: inout [ChainOutput]) {
        lastRawFix = raw
        guard let fix = cleaner.clean(raw) else { return }
        lastAcceptedFix = raw
        previousClean = lastClean
        lastClean = fix
        if recentFixes.count == 128 { recentFixes.removeFirst(64) }
        recentFixes.append(fix)
        if let state = activity.update(speed: fix.speed, at: fix.time) {
            out.append(.activity(fix.time, state))
        }
        resolvePendingObstacles(upTo: fix, into: &out)
        let wasInTrip = trips.inTrip
        trips.add(fix, activity: activity.current ?? .stationary, into: &out)
        if trips.inTrip {
            for event in heldObstacles { out.append(.obstacle(event)) }
            heldObstacles.removeAll()
        } else if trips.phase == .idle {
            heldObstacles.removeAll()
        }
        if trips.inTrip, trips.phase == .recording, previousClean != nil, wasInTrip {
            if let segment = roadQuality.advance(
                meters: trips.lastStep, speed: fix.speed, at: fix.time,
                coordinate: fix.smoothed)
            {
                out.append(.roadQuality(segment))
            }
        } else {
            roadQuality.reset()
        }
        refreshHotState()
    }

    /// Per-sample gating state, refreshed at each fix and marker so the IMU loop reads
    /// plain fields instead of walking the trip state.
    var hotSpeed: Double = 0
    var hotSpeedUntil = Int64.min
    /// In a trip, or cycling towards one (the trip will start where the cycling began).
    var hotRiding = false
    var hotRecording = false

    /// Road vibration (the obstacle detector's noise level) when the last fix came.
    var vibrationAtFix: Float = 0

    mutating func refreshHotState() {
        hotRiding = trips.inTrip || trips.phase == .candidate
        hotRecording = trips.phase == .recording
        if let f = lastClean {
            hotSpeed = f.speed
            hotSpeedUntil = f.time.nanoseconds &+ 5_000_000_000
            vibrationAtFix = detector.meanAbs
        }
    }

    /// IMU-aided speed in a GNSS outage (tunnel, urban canyon): for up to a minute after
    /// the last fix, the rider is taken to keep its speed while the road vibration stays
    /// at least half what it was then, and to have stopped once it falls below that.
    /// Only gating uses it (obstacles, crash); distance and positions wait for fixes.
    @inline(never)
    func speedDuringOutage(at now: Int64) -> Double? {
        guard now &- hotSpeedUntil <= 55_000_000_000, vibrationAtFix > 0.05,
            detector.meanAbs >= 0.5 * vibrationAtFix
        else { return nil }
        return hotSpeed
    }

    @inline(__always)
    mutating func process(imu sample: IMUSample, into out: inout [ChainOutput]) {
        // A non-finite reading would poison every filter state for good: drop it.
        let a = sample.accel
        guard (a.x + a.y + a.z).isFinite, sample.gyro.map({ ($0.x + $0.y + $0.z).isFinite }) ?? true else {
            rejectedIMUSamples &+= 1
            return
        }
        let now = sample.time.nanoseconds
        var dt: Float = 0.005
        if let last = lastIMUTime {
            let d = Double(now &- last.nanoseconds) * 1e-9
            guard d > 0 else { rejectedIMUSamples &+= 1; return }  // out of order or duplicate
            dt = Float(min(d, 0.1))  // a gap is not integrated over
            // Mean interval, not mean 1/interval: jittery timestamps would bias the latter.
            if d < 0.1 { meanIMUInterval = meanIMUInterval == 0 ? d : meanIMUInterval + 0.01 * (d - meanIMUInterval) }
        }
        lastIMUTime = sample.time
        let vertical = gravity.step(accel: sample.accel, gyro: sample.gyro, dt: dt)
        window.append(vertical)
        activity.steps.add(vertical, dt: dt)

        // Speed of a fix at most 5 s old gates obstacles and crashes.
        let speed: Double? = now <= hotSpeedUntil ? hotSpeed : speedDuringOutage(at: now)
        let gateOpen = hotRiding && (speed ?? 0) >= configuration.obstacleMinSpeed
        var detection: ObstacleDetection?
        let y = detector.step(vertical, dt: dt, gateOpen: gateOpen, detection: &detection)
        judge.append(detector.lastObstacleValue)
        if let detection { judge.add(detection, speed: speed, rate: windowRate(dt: dt)) }
        if !judge.pending.isEmpty { judgePending(flush: false, now: sample.time, dt: dt) }
        if hotRecording { roadQuality.add(vibration: y, dt: dt) }

        if configuration.crashDetectionEnabled,
            let hit = crash.step(
                time: sample.time, accel: sample.accel, gyro: sample.gyro,
                gravity: gravity, speed: speed, dt: dt)
        {
            let rate = windowRate(dt: dt)
            let samples = window.last(Int((sample.time.secondsSince(hit.impact) + 1) * rate) + 1)
            out.append(
                .sos(
                    SOSEvent(
                        time: sample.time, impactTime: hit.impact, impactPeak: Double(hit.peak),
                        lastFix: lastAcceptedFix, window: samples, windowRate: rate)))
        }
    }

    /// The measured IMU rate, or the rate the current spacing implies before there is one.
    func windowRate(dt: Float) -> Double { imuRate > 0 ? imuRate : 1 / Double(max(dt, 1e-4)) }

    /// Judges the detections whose context is in and turns the kept ones into pending
    /// events (they get their position at the next fix).
    mutating func judgePending(flush: Bool, now: SampleTime?, dt: Float) {
        judged.removeAll(keepingCapacity: true)
        judge.decide(flush: flush, into: &judged)
        guard let now else { return }
        for c in judged { record(c, now: now, dt: dt) }
    }

    mutating func record(_ c: JudgedCandidate, now: SampleTime, dt: Float) {
        let d = c.detection
        guard c.strength >= configuration.sensitivity.scale(for: d.kind) else { return }
        let rate = windowRate(dt: dt)
        let newest = judge.count &- 1
        let peakTime = now.advanced(bySeconds: -Double(newest &- d.peakIndex) / rate)
        // The review window is cut from the judge's ring, the obstacle band the peak was
        // measured on, around the peak sample: what the rider sees is what was judged.
        let (samples, peakAt) = judge.window(
            around: d.peakIndex,
            before: Int((configuration.obstacle.windowBeforeSeconds * rate).rounded()),
            after: Int((configuration.obstacle.windowAfterSeconds * rate).rounded()))
        pendingObstacles.append(
            ObstacleEvent(
                time: peakTime, kind: d.kind, peak: Double(d.peak),
                energy: Double(d.energy), window: samples, windowRate: rate,
                windowPeakIndex: peakAt,
                severity: c.severity, confidence: c.confidence, strength: c.strength))
    }

    /// Positions pending obstacles between the recent fixes around their time, merges
    /// repeats within `obstacleMergeMeters`, and emits them. An event newer than the
    /// latest fix waits for the next one (unless the input has ended: `fix` is nil).
    mutating func resolvePendingObstacles(upTo fix: CleanFix?, into out: inout [ChainOutput]) {
        guard !pendingObstacles.isEmpty else { return }
        var waiting: [ObstacleEvent] = []
        for var event in pendingObstacles {
            if let fix, event.time > fix.time { waiting.append(event); continue }
            position(&event)
            if event.source == .detected {
                if let previous = lastObstacle, let a = previous.coordinate, let b = event.coordinate,
                    Geodesic.distance(a, b) < configuration.obstacleMergeMeters
                {
                    continue  // the same obstacle seen again (front then rear wheel, rebound)
                }
                lastObstacle = event
            }
            if trips.inTrip || fix == nil { out.append(.obstacle(event)) } else { heldObstacles.append(event) }
        }
        pendingObstacles = waiting
    }

    /// Interpolates position, speed and UTC from the fixes around the event's time; the
    /// nearest fix when it lies outside them.
    func position(_ event: inout ObstacleEvent) {
        guard !recentFixes.isEmpty else { return }
        let i = recentFixes.firstIndex { $0.time > event.time } ?? recentFixes.count
        guard i > 0, i < recentFixes.count else {
            let nearest = recentFixes[min(i, recentFixes.count - 1)]
            event.coordinate = nearest.smoothed
            event.speed = nearest.speed
            return
        }
        let a = recentFixes[i - 1], b = recentFixes[i]
        let u = max(0, min(1, event.time.secondsSince(a.time) / b.time.secondsSince(a.time)))
        event.coordinate = Coordinate(
            latitude: a.smoothed.latitude + u * (b.smoothed.latitude - a.smoothed.latitude),
            longitude: a.smoothed.longitude + u * (b.smoothed.longitude - a.smoothed.longitude))
        event.speed = a.speed + u * (b.speed - a.speed)
        event.utc = a.utc.flatMap { ua in
            b.utc.map { ub in
                UTCTime(
                    nanosecondsSince1970: ua.nanosecondsSince1970
                        &+ Int64(max(-9e18, min(9e18, (Double(ub.nanosecondsSince1970 &- ua.nanosecondsSince1970) * u).rounded()))))
            }
        }
    }
}

/// Fixed-capacity ring of recent vertical acceleration, for the review window.
struct VerticalRing: Sendable {
    var storage: [Float]
    var next = 0
    var count = 0

    init(capacity: Int) { storage = [Float](repeating: 0, count: capacity) }

    @inline(__always)
    mutating func append(_ x: Float) {
        storage.withUnsafeMutableBufferPointer { $0[next] = x }
        next += 1
        if next == storage.count { next = 0 }
        if count < storage.count { count += 1 }
    }

    /// `n` samples ending `back` samples before the newest (0: ending with the newest).
    func slice(back: Int, count n: Int) -> [Float] {
        let b = max(0, min(back, count))
        let k = max(0, min(n, count - b))
        var out = [Float](); out.reserveCapacity(k)
        var i = ((next - b - k) % storage.count + storage.count) % storage.count
        for _ in 0..<k { out.append(storage[i]); i += 1; if i == storage.count { i = 0 } }
        return out
    }

    func last(_ n: Int) -> [Float] { slice(back: 0, count: n) }
}
