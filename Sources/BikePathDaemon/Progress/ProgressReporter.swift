import Foundation
import Synchronization

/// Progress of a long operation (import, replay, drain) on stderr: a bar
/// redrawn in place on a terminal, plain lines otherwise (journal, CI logs,
/// pipes), so no log ever fills with carriage returns.
public final class ProgressReporter: Sendable {
    /// `bar`: redrawn in place on a terminal; `lines`: plain lines for logs and pipes.
    public enum Style: Sendable, Equatable { case bar, lines }

    public let label: String
    public let total: Int64?
    public let style: Style
    private let unit: String
    private let write: @Sendable (String) -> Void
    private let clock: @Sendable () -> Double
    private struct Drawn {
        var done: Int64 = 0
        var lastDraw: Double = -.infinity
        var lastLinePercent = -1
        var lastLineTime: Double
        var finished = false
    }
    private let drawn: Mutex<Drawn>
    private let startTime: Double
    /// Redraws at most this often on a terminal; plain lines come every
    /// `lineStepPercent` or, without a total, every `lineIntervalSeconds`.
    let redrawSeconds = 0.1
    let lineStepPercent = 10
    let lineIntervalSeconds = 5.0
    static let barWidth = 30

    /// `unit`: "bytes" shows sizes in KiB/MiB; anything else is a count word ("records").
    public init(
        label: String, total: Int64?, unit: String = "records",
        style: Style = isatty(STDERR_FILENO) == 1 ? .bar : .lines,
        write: @escaping @Sendable (String) -> Void = { text in
            var bytes = Array(text.utf8)
            _ = bytes.withUnsafeMutableBytes { Foundation.write(STDERR_FILENO, $0.baseAddress!, $0.count) }
        },
        clock: @escaping @Sendable () -> Double = { Date().timeIntervalSinceReferenceDate }
    ) {
        self.label = label
        self.total = total.flatMap { $0 > 0 ? $0 : nil }
        self.unit = unit
        self.style = style
        self.write = write
        self.clock = clock
        startTime = clock()
        drawn = Mutex(Drawn(lastLineTime: startTime))
    }

    /// Sets the amount done so far (not an increment: callers know their position).
    public func update(_ completed: Int64) {
        drawn.withLock { d in
            guard !d.finished else { return }
            d.done = completed
            let now = clock()
            switch style {
            case .bar:
                guard now - d.lastDraw >= redrawSeconds else { return }
                d.lastDraw = now
                write("\r" + barText(done: completed) + "\u{1B}[K")
            case .lines:
                if let percent = percent(completed) {
                    let step = percent / lineStepPercent * lineStepPercent
                    guard step > d.lastLinePercent, percent < 100 else { return }
                    d.lastLinePercent = step
                } else {
                    guard now - d.lastLineTime >= lineIntervalSeconds else { return }
                    d.lastLineTime = now
                }
                write(lineText(done: completed) + "\n")
            }
        }
    }

    /// Final state, always printed once, ending the bar's line.
    public func finish(_ completed: Int64? = nil, summary: String? = nil) {
        drawn.withLock { d in
            guard !d.finished else { return }
            d.finished = true
            if let completed { d.done = completed }
            let elapsed = clock() - startTime
            var text = "\(label): \(amount(d.done)) done in \(String(format: "%.1f", elapsed)) s"
            if let summary { text += ", " + summary }
            write((style == .bar ? "\r" : "") + text + (style == .bar ? "\u{1B}[K\n" : "\n"))
        }
    }

    private func percent(_ done: Int64) -> Int? {
        total.map { Int(min(100, max(0, Double(done) * 100 / Double($0)))) }
    }

    func barText(done: Int64) -> String {
        guard let total, let percent = percent(done) else { return "\(label): \(amount(done))" }
        let filled = Int(Double(Self.barWidth) * Double(min(done, total)) / Double(total))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: Self.barWidth - filled)
        return "\(label) [\(bar)] \(String(format: "%3d", percent))% \(amount(done))/\(amount(total))"
    }

    func lineText(done: Int64) -> String {
        guard let total, let percent = percent(done) else { return "\(label): \(amount(done))" }
        return "\(label): \(percent)% (\(amount(done))/\(amount(total)))"
    }

    private func amount(_ n: Int64) -> String {
        unit == "bytes" ? DaemonStatus.bytes(n) : "\(n) \(unit)"
    }
}
