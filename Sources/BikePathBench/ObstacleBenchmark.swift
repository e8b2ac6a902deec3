import BikePathCore
import BikePathFixtures
import Foundation

/// The detector on a real ride (the detector's yardstick, docs/evaluation.md "Bicycle"):
/// candidates per km at the defaults, whether the ride's largest jolts are among them, and
/// the recall of physically modelled wheel impacts injected into the same ride's IMU.
enum ObstacleBenchmark {
    struct Run {
        var obstacles: [ObstacleEvent]
        var distanceMeters: Double
    }

    static func run(path: String, seeds: ClosedRange<UInt64>, perRide: Int) throws {
        let records = try read(path)
        let plain = chain(records)
        let km = plain.distanceMeters / 1000
        let perKm = Double(plain.obstacles.count) / max(km, 1e-9)
        print(
            String(
                format: "ride: %@, %.0f m, %d candidates = %.1f per km", (path as NSString).lastPathComponent,
                plain.distanceMeters, plain.obstacles.count, perKm))
        for o in plain.obstacles {
            print(
                String(
                    format: "  t=%7.2f s %-12@ peak %5.1f m/s²  speed %4.1f m/s  severity %.2f  confidence %.2f  strength %.2f",
                    o.time.seconds, o.kind.rawValue, o.peak, o.speed ?? -1, o.severity, o.confidence, o.strength))
        }
        // The ride's largest jolts: the strongest events the trigger finds with the judge open.
        var open = configuration
        open.obstacle.contextSigmas = 0
        open.obstacle.reportPeak = 0
        open.obstacleMergeMeters = 0
        open.obstacle.wheelbaseMeters = 0  // no echo test, so no event is taken for another's echo
        let jolts = chain(records, configuration: open).obstacles.sorted { $0.peak > $1.peak }.prefix(2)
        let joltsKept = jolts.allSatisfy { j in plain.obstacles.contains { abs($0.time.seconds - j.time.seconds) < 0.5 } }
        print(
            "largest jolts: "
                + jolts.map { String(format: "t=%.2f s peak %.1f m/s²", $0.time.seconds, $0.peak) }
                .joined(separator: ", ") + (joltsKept ? " — both among the candidates" : " — NOT all among the candidates"))

        var injected = 0, found = 0, elsewhereMax = 0, elsewhereTotal = 0, kindRight = 0
        let avoid = plain.obstacles.map(\.time.seconds)
        for seed in seeds {
            let placed = ImpactInjection.plan(records: records, count: perRide, seed: seed, avoiding: avoid)
            let out = chain(ImpactInjection.inject(placed, into: records)).obstacles
            var hits = 0
            for p in placed {
                let window = (p.time - 0.3)...(p.time + p.impact.rearDelay + 0.3)
                if let hit = out.first(where: { window.contains($0.time.seconds) }) {
                    hits += 1
                    if hit.kind == p.impact.kind { kindRight += 1 }
                    continue
                }
                if ProcessInfo.processInfo.environment["BENCH_VERBOSE"] != nil {
                    var open = configuration
                    open.obstacle.contextSigmas = 0; open.obstacle.reportPeak = 0; open.obstacleMergeMeters = 0;
                    open.obstacle.wheelbaseMeters = 0
                    for o in chain(ImpactInjection.inject(placed, into: records), configuration: open).obstacles
                    where abs(o.time.seconds - p.time) < (ProcessInfo.processInfo.environment["BENCH_WIDE"] != nil ? 6 : 1) {
                        print(String(format: "     open: t=%.2f %@ peak %.1f", o.time.seconds, o.kind.rawValue, o.peak))
                    }
                    let i = p.impact
                    print(
                        String(
                            format: "   missed t=%.2f %@ peak %.1f speed %.1f rear %.2f contact %.2f", p.time,
                            i.kind.rawValue, i.peak, i.speed, i.rearRatio, i.contactLength))
                }
            }
            let elsewhere = out.filter { o in
                !placed.contains { ((($0.time - 1)...($0.time + $0.impact.rearDelay + 1)).contains(o.time.seconds)) }
            }.count
            injected += placed.count; found += hits
            elsewhereMax = max(elsewhereMax, elsewhere); elsewhereTotal += elsewhere
            print(String(format: "seed %3d: %d/%d injected found, %d candidates elsewhere", seed, hits, placed.count, elsewhere))
        }
        let recall = Double(found) / Double(max(injected, 1))
        print(
            String(
                format:
                    "injected: %d/%d found = %.1f %%; candidates elsewhere: mean %.2f, max %d (plain ride: %d); kind right for %d of %d found",
                found, injected, 100 * recall, Double(elsewhereTotal) / Double(seeds.count), elsewhereMax,
                plain.obstacles.count, kindRight, found))
        let densityMet = perKm <= 5 && joltsKept
        let recallMet = recall >= 0.9 && elsewhereMax <= plain.obstacles.count
        print("goal candidates ≤ 5 per km with the largest jolts kept: " + (densityMet ? "met" : "NOT met"))
        print("goal recall ≥ 90 % with no more candidates elsewhere than on the plain ride: " + (recallMet ? "met" : "NOT met"))
    }

    static func read(_ path: String) throws -> [SensorRecord] {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var decoder = RecordingDecoder()
        decoder.feed(bytes)
        decoder.finish()
        var records: [SensorRecord] = []
        while let event = decoder.next() {
            if case .record(let r) = event { records.append(r) }
        }
        return records
    }

    /// The chain's defaults, or values under study from the environment (BENCH_K, BENCH_PEAK,
    /// BENCH_ECHO_FACTOR, BENCH_ECHO_CONTRAST, BENCH_ECHO_SIGMAS, BENCH_TRIGGER_PEAK,
    /// BENCH_TRIGGER_SIGMAS, BENCH_RELEASE, BENCH_PEAK_SPEED_EXPONENT, BENCH_OBSTACLE_LOW_PASS_HZ).
    static var configuration: PipelineConfiguration {
        var c = PipelineConfiguration()
        let env = ProcessInfo.processInfo.environment
        func value(_ key: String) -> Float? { env[key].flatMap(Float.init) }
        if let v = value("BENCH_K") { c.obstacle.contextSigmas = v }
        if let v = value("BENCH_PEAK") { c.obstacle.reportPeak = v }
        if let v = value("BENCH_ECHO_FACTOR") { c.obstacle.echoThresholdFactor = v }
        if let v = value("BENCH_ECHO_CONTRAST") { c.obstacle.echoContrast = v }
        if let v = value("BENCH_ECHO_SIGMAS") { c.obstacle.echoSigmas = v }
        if let v = value("BENCH_TRIGGER_PEAK") { c.obstacle.minimumPeak = v }
        if let v = value("BENCH_TRIGGER_SIGMAS") { c.obstacle.thresholdSigmas = v }
        if let v = value("BENCH_RELEASE") { c.obstacle.releaseSeconds = v }
        if let v = value("BENCH_PEAK_SPEED_EXPONENT") { c.obstacle.reportPeakSpeedExponent = v }
        if let v = value("BENCH_OBSTACLE_LOW_PASS_HZ") { c.obstacle.obstacleLowPassHz = v }
        if let v = value("BENCH_SMOOTH_SIGMAS") { c.obstacle.smoothRoadSigmas = v }
        if let v = value("BENCH_SMOOTH_PEAK") { c.obstacle.smoothRoadPeak = v }
        return c
    }

    static func chain(_ records: [SensorRecord], configuration: PipelineConfiguration = Self.configuration) -> Run {
        var pipeline = Pipeline(configuration: configuration)
        var out: [ChainOutput] = []
        var i = 0
        while i < records.count {  // one-second-ish batches, as a live source hands them over
            let batch = records[i..<min(i + 256, records.count)]
            out += pipeline.process(batch)
            i += 256
        }
        out += pipeline.finish()
        var run = Run(obstacles: [], distanceMeters: 0)
        for o in out {
            switch o {
            case .obstacle(let e) where e.source == .detected: run.obstacles.append(e)
            case .tripEnded(let t): run.distanceMeters += t.statistics.distanceMeters
            default: break
            }
        }
        return run
    }
}
