import Foundation

/// A candidate's acceleration window as a small SVG line plot: samples spread
/// over the width, the y axis from 0 to the window's peak (at least 1 m/s², so a
/// flat window stays flat instead of magnifying noise).
public struct WindowPlot: Sendable, Equatable {
    public var width: Double = 160
    public var height: Double = 48
    public let samples: [Float]
    /// Samples per second (for the caption).
    public let rate: Double

    public init(samples: [Float], rate: Double, width: Double = 160, height: Double = 48) {
        self.samples = samples
        self.rate = rate
        self.width = width
        self.height = height
    }

    /// The top of the y axis in m/s².
    public var peak: Double { max(1, samples.map { Double(abs($0)) }.max() ?? 0) }

    /// The polyline's points, `x,y` pairs in SVG units.
    public var points: [(x: Double, y: Double)] {
        guard samples.count > 1 else { return samples.map { _ in (0, height) } }
        let step = width / Double(samples.count - 1), peak = self.peak
        return samples.enumerated().map { i, v in (Double(i) * step, height - Double(abs(v)) / peak * height) }
    }

    /// The plot as an SVG element.
    public var svg: String {
        let line = points.map { String(format: "%.1f,%.1f", $0.x, $0.y) }.joined(separator: " ")
        let seconds = rate > 0 ? String(format: "%.1f s", Double(samples.count) / rate) : "\(samples.count) samples"
        return """
            <svg class="plot" viewBox="0 0 \(Int(width)) \(Int(height) + 12)" width="\(Int(width))" height="\(Int(height) + 12)" role="img" \
            aria-label="acceleration window"><polyline fill="none" stroke="#c33" stroke-width="1" points="\(line)"/>\
            <text x="0" y="\(Int(height) + 11)" font-size="10">\(seconds), peak \(String(format: "%.1f", peak)) m/s²</text></svg>
            """
    }
}
