/// A closed detection, before it is given a position (plain values, no allocation).
struct ObstacleDetection: Sendable, Equatable {
    var startIndex: Int
    var peakIndex: Int
    var endIndex: Int
    var kind: ObstacleKind
    var peak: Float
    var energy: Float
}

/// Streaming pothole/bump/irregularity trigger on vertical acceleration.
///
/// Two band-passes: the road band (1–20 Hz, what road quality is rated on) and the
/// obstacle band (on a bicycle the 1 Hz high-pass alone; the road band for a bare series). In the obstacle
/// band a robust adaptive threshold: an event starts when |y| exceeds max(k·σ, floor),
/// where σ tracks the road's own vibration (an exponential mean of |y| with outliers
/// clipped, frozen during events). Shape gives the kind: a downward first swing is a
/// pothole (the wheel drops before it hits the far edge), an upward one a bump, a long
/// event with many swings an irregularity. In the chain, `CandidateJudge` then decides.
public struct ObstacleDetector: Sendable {
    let configuration: ObstacleDetectorConfiguration
    var bandPass: BandPass
    /// The obstacle band when it differs from the road band.
    var obstacleBand: BandPass?
    /// The obstacle-band value of the last sample (the judge keeps these).
    var lastObstacleValue: Float = 0
    /// Mean |y| of the road outside events (σ ≈ 1.2533 · mean|y| for Gaussian noise).
    var meanAbs: Float
    var sampleIndex = 0
    // The event in progress.
    var inEvent = false
    var startIndex = 0
    var peakIndex = 0
    var lastAboveIndex = 0
    var peak: Float = 0
    var energy: Float = 0
    var firstSign: Float = 0
    var crossings = 0
    var wasAbove = false
    var elapsed: Float = 0
    var lastDt: Float = -1
    var noiseGain: Float = 0

    init(configuration: ObstacleDetectorConfiguration, initialNoise: Float? = nil) {
        self.configuration = configuration
        bandPass = BandPass(highPassHz: configuration.highPassHz, lowPassHz: configuration.lowPassHz)
        if let hz = configuration.obstacleLowPassHz, hz != configuration.lowPassHz {
            obstacleBand = BandPass(highPassHz: configuration.highPassHz, lowPassHz: hz)
        }
        meanAbs = (initialNoise ?? configuration.initialNoise) / 1.2533
    }

    @inline(__always)
    var threshold: Float { max(configuration.thresholdSigmas * 1.2533 * meanAbs, configuration.minimumPeak) }

    /// Feeds one vertical acceleration sample; returns the road-band value and, when an
    /// event has just ended, the detection. With the gate closed (too slow, not riding)
    /// no event starts and the noise level stays at what the road last showed.
    @inline(__always)
    mutating func step(_ x: Float, dt: Float, gateOpen: Bool = true, detection: inout ObstacleDetection?) -> Float {
        let road = bandPass.step(x, dt: dt)
        let y = obstacleBand == nil ? road : obstacleBand!.step(x, dt: dt)
        lastObstacleValue = y
        let a = abs(y)
        let t = threshold
        let index = sampleIndex
        sampleIndex &+= 1
        if inEvent {
            energy += y * y * dt
            elapsed += dt
            if a > peak { peak = a; peakIndex = index }
            let above = a > t
            if above {
                if !wasAbove { crossings += 1 }
                lastAboveIndex = index
                elapsed = 0
            } else if elapsed >= configuration.releaseSeconds {
                detection = close(endIndex: index, dt: dt)
            }
            wasAbove = above
        } else if !gateOpen {
            return road
        } else if a > t {
            inEvent = true
            startIndex = index; peakIndex = index; lastAboveIndex = index
            peak = a; energy = y * y * dt; firstSign = y < 0 ? -1 : 1
            crossings = 1; wasAbove = true; elapsed = 0
        } else {
            // Clip so that a single spike under the threshold barely moves the noise level.
            let clipped = min(a, 3 * meanAbs + 0.05)
            if dt != lastDt { lastDt = dt; noiseGain = dt / (configuration.noiseTimeConstant + dt) }
            meanAbs += noiseGain * (clipped - meanAbs)
        }
        return road
    }

    mutating func close(endIndex: Int, dt: Float) -> ObstacleDetection {
        inEvent = false
        let duration = Float(lastAboveIndex - startIndex) * dt
        let kind: ObstacleKind
        if duration >= configuration.irregularityMinSeconds && crossings >= configuration.irregularityMinPeaks {
            kind = .irregularity
        } else {
            kind = firstSign < 0 ? .pothole : .bump
        }
        return ObstacleDetection(
            startIndex: startIndex, peakIndex: peakIndex, endIndex: endIndex,
            kind: kind, peak: peak, energy: energy)
    }

    /// Closes an event still open at the end of the input.
    mutating func flush(dt: Float) -> ObstacleDetection? {
        inEvent ? close(endIndex: sampleIndex, dt: dt) : nil
    }
}

extension ObstacleDetector {
    /// Runs the detector on a bare series of vertical acceleration (m/s², gravity
    /// included or not: the band-pass removes it) at a fixed rate, speed unknown.
    /// The noise level starts at the series' own robust σ (from a low quantile of |y|), so
    /// the threshold is in units of the recording's own vibration from the first sample.
    /// Event times are the peak, in seconds from the first sample.
    public static func detect(
        verticalAcceleration series: [Float], rate: Double,
        configuration: ObstacleDetectorConfiguration = .init()
    ) -> [ObstacleEvent] {
        // Rates outside 1 mHz–10 MHz are not sensor rates (and would overflow sample times).
        guard rate >= 1e-3, rate <= 1e7, !series.isEmpty else { return [] }
        let dt = Float(1 / rate)
        var config = configuration
        config.lowPassHz = min(config.lowPassHz, Float(rate) * 0.4)
        // First pass: the series' own band-passed noise.
        var probe = BandPass(highPassHz: config.highPassHz, lowPassHz: config.lowPassHz)
        var magnitudes = series.map { abs(probe.step($0.isFinite ? $0 : 0, dt: dt)) }
        let sigma = quietSigma(&magnitudes)
        var detector = ObstacleDetector(configuration: config, initialNoise: sigma)
        // The band the peaks are measured on, kept whole: each event's window is cut from
        // it around the peak sample (the series is in memory already, this doubles it).
        var band: [Float] = []
        band.reserveCapacity(series.count)
        var detections: [ObstacleDetection] = []
        for x in series {
            var detection: ObstacleDetection?
            _ = detector.step(x.isFinite ? x : 0, dt: dt, detection: &detection)
            band.append(detector.lastObstacleValue)
            if let detection { detections.append(detection) }
        }
        if let last = detector.flush(dt: dt) { detections.append(last) }
        let before = Int((config.windowBeforeSeconds * rate).rounded()), after = Int((config.windowAfterSeconds * rate).rounded())
        return detections.map { d in
            let from = max(0, d.peakIndex - before), to = min(band.count, d.peakIndex + after + 1)
            return ObstacleEvent(
                time: SampleTime(seconds: Double(d.peakIndex) / rate), kind: d.kind,
                peak: Double(d.peak), energy: Double(d.energy),
                window: Array(band[from..<to]), windowRate: rate, windowPeakIndex: d.peakIndex - from)
        }
    }

    /// σ of the quiet part of a series from the 25th percentile of |y|: for Gaussian
    /// noise that percentile is 0.3186 σ. A low quantile stays robust when obstacles fill
    /// much of a short recording, where the median would already be inflated.
    static func quietSigma(_ magnitudes: inout [Float]) -> Float {
        guard !magnitudes.isEmpty else { return 0 }
        magnitudes.sort()
        return magnitudes[magnitudes.count / 4] / 0.3186
    }
}
