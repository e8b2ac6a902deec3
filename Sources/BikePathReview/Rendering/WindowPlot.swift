import Foundation

/// A candidate's acceleration window as a small SVG plot the rider judges the candidate
/// by: the signed vertical acceleration (the obstacle band its peak was measured on) over
/// time, a time axis in ms relative to the impact, an m/s² scale symmetric about 0, and the
/// impact (the peak sample) marked with a line and a dot.
///
/// The y scale is the smallest of 1, 2, 5, 10, 20, 50… m/s² that holds the window's largest
/// |sample| (at least 1 m/s², so a quiet window stays flat instead of magnifying noise), so
/// the peak reaches at least 40 % of the half-height. Time ticks every 250 ms (every 100 ms
/// for a window shorter than 0.6 s), at 0 on the impact; a window stored before the peak
/// was known (schema < 5) has no mark and counts ms from its first sample.
public struct WindowPlot: Sendable, Equatable {
    /// The plotting area, SVG units; the axes' labels lie outside it.
    public var width: Double = 200
    public var height: Double = 60
    public let samples: [Float]
    /// Samples per second.
    public let rate: Double
    /// Index in `samples` of the impact (the peak sample), when known.
    public let peakIndex: Int?

    /// Room for the scale's labels left of the plot, the time labels and caption below.
    // right: half the width of "+750" in 9 px text (about 11 px) plus 3, so the last tick label is not cut off.
    static let left = 30.0, right = 14.0, top = 6.0, bottom = 26.0

    public init(samples: [Float], rate: Double, peakIndex: Int? = nil, width: Double = 200, height: Double = 60) {
        self.samples = samples
        self.rate = rate
        self.peakIndex = peakIndex.flatMap { samples.indices.contains($0) ? $0 : nil }
        self.width = width
        self.height = height
    }

    /// The largest |sample|, m/s².
    public var peak: Double { samples.map { Double(abs($0)) }.max() ?? 0 }

    /// The top of the y scale (and, negated, its bottom), m/s²: 1, 2 or 5 × 10ⁿ.
    public var scale: Double {
        let p = max(1, peak)
        var step = 1.0
        while true {
            for m in [1.0, 2, 5] where m * step >= p { return m * step }
            step *= 10
        }
    }

    /// x of sample `i`, SVG units.
    public func x(_ i: Int) -> Double {
        samples.count > 1 ? Self.left + Double(i) / Double(samples.count - 1) * width : Self.left
    }

    /// y of a value in m/s², SVG units (0 in the middle, up positive).
    public func y(_ value: Double) -> Double { Self.top + height / 2 - value / scale * height / 2 }

    /// Milliseconds of sample `i` relative to the impact (to the first sample without one).
    public func milliseconds(_ i: Int) -> Double {
        guard rate > 0 else { return 0 }
        return Double(i - (peakIndex ?? 0)) / rate * 1000
    }

    /// The polyline's points, `x,y` pairs in SVG units.
    public var points: [(x: Double, y: Double)] {
        samples.indices.map { (x($0), y(Double(samples[$0]))) }
    }

    /// The impact's point (x, y), when known.
    public var impact: (x: Double, y: Double)? {
        peakIndex.map { (x($0), y(Double(samples[$0]))) }
    }

    /// Time ticks inside the window: (ms from the impact, x).
    public var timeTicks: [(ms: Int, x: Double)] {
        guard rate > 0, samples.count > 1 else { return [] }
        let first = milliseconds(0), last = milliseconds(samples.count - 1)
        let step = last - first < 600 ? 100.0 : 250.0
        var out: [(ms: Int, x: Double)] = []
        var t = (first / step).rounded(.up) * step
        while t <= last + 1e-9 {
            let index = t / 1000 * rate + Double(peakIndex ?? 0)
            out.append((Int(t.rounded()), x(0) + index / Double(samples.count - 1) * width))
            t += step
        }
        return out
    }

    /// The plot as an SVG element.
    public var svg: String {
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        func label(_ v: Double) -> String { v == 0 ? "0" : (v > 0 ? "+" : "−") + String(format: "%g", abs(v)) }
        let totalWidth = Self.left + width + Self.right, totalHeight = Self.top + height + Self.bottom
        let x0 = Self.left, x1 = Self.left + width, yBase = Self.top + height
        var parts: [String] = []
        // The m/s² scale: top, zero and bottom lines with their values.
        for v in [scale, 0, -scale] {
            parts.append(
                "<line class=\"grid\" x1=\"\(f(x0))\" y1=\"\(f(y(v)))\" x2=\"\(f(x1))\" y2=\"\(f(y(v)))\" stroke=\"#ccc\" stroke-width=\"0.5\"/>"
            )
            parts.append(
                "<text class=\"scale\" x=\"\(f(x0 - 2))\" y=\"\(f(y(v) + 3))\" font-size=\"9\" text-anchor=\"end\">\(label(v))</text>")
        }
        // The time axis: ticks and ms labels.
        for tick in timeTicks {
            parts.append(
                "<line class=\"tick\" x1=\"\(f(tick.x))\" y1=\"\(f(yBase))\" x2=\"\(f(tick.x))\" y2=\"\(f(yBase + 3))\" stroke=\"#888\" stroke-width=\"0.5\"/>"
            )
            parts.append(
                "<text class=\"time\" x=\"\(f(tick.x))\" y=\"\(f(yBase + 12))\" font-size=\"9\" text-anchor=\"middle\">\(tick.ms == 0 ? "0" : (tick.ms > 0 ? "+" : "−") + String(abs(tick.ms)))</text>"
            )
        }
        if let impact {
            parts.append(
                "<line class=\"impact\" x1=\"\(f(impact.x))\" y1=\"\(f(Self.top))\" x2=\"\(f(impact.x))\" y2=\"\(f(yBase))\" stroke=\"#06c\" stroke-width=\"1\" stroke-dasharray=\"2,2\"/>"
            )
        }
        let line = points.map { "\(f($0.x)),\(f($0.y))" }.joined(separator: " ")
        parts.append("<polyline fill=\"none\" stroke=\"#c33\" stroke-width=\"1\" points=\"\(line)\"/>")
        if let impact {
            parts.append("<circle class=\"impact\" cx=\"\(f(impact.x))\" cy=\"\(f(impact.y))\" r=\"2.5\" fill=\"#06c\"/>")
        }
        let axis = peakIndex == nil ? "ms from window start" : "ms from impact"
        let caption = "\(axis) · m/s² · peak \(String(format: "%.1f", peak)) m/s²"
        parts.append("<text x=\"0\" y=\"\(f(totalHeight - 2))\" font-size=\"9\">\(caption)</text>")
        return """
            <svg class="plot" viewBox="0 0 \(Int(totalWidth)) \(Int(totalHeight))" width="\(Int(totalWidth))" height="\(Int(totalHeight))" \
            role="img" aria-label="vertical acceleration around the impact">\(parts.joined())</svg>
            """
    }
}
