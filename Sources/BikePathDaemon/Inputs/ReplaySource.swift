import BikePathCore
import BikePathSensors
import Foundation
import Synchronization

/// `run --replay FILE`: a recording instead of the live sensors, as fast as the
/// chain and the store take it, with a progress bar. `repeats` plays it again and
/// again, each pass shifted in sample time past the previous one. `speed` paces it
/// instead: sample time runs `speed` times as fast as the wall clock (`--replay-speed`,
/// for a daemon that must be mid-ride while something talks to it, e.g. `bikepathd mark`).
///
/// A damaged file plays what can be read (the reader resyncs past corrupt stretches);
/// what it skipped is in `problems`. A read error mid-file ends the replay and is kept
/// in `failure`, so `run` exits non-zero instead of passing a short replay off as whole.
public final class ReplaySource: SensorSource, Sendable {
    let path: String
    let repeats: Int
    let total: Int64
    let speed: Double?
    /// Problems the counting pass found in the file (truncation, corrupt stretches).
    let problems: [RecordingProblem]
    private let progress: ProgressReporter
    /// What changes as the file plays; `next` runs on the pipeline's thread, `stop` on another.
    private let playback: Mutex<Playback>

    /// - Throws: `RecordingFileError` (unreadable file), `ReplaySourceError` (cannot repeat).
    public init(path: String, repeats: Int, speed: Double? = nil) throws {
        self.path = path
        self.speed = speed
        self.repeats = max(1, repeats)
        // One quick pass to count: the bar needs a total.
        let counter = try RecordingReader(path: path)
        var count: Int64 = 0
        var earliest = Int64.max, latest = Int64.min
        while let r = try counter.next() {
            count += 1
            earliest = min(earliest, r.time.nanoseconds)
            latest = max(latest, r.time.nanoseconds)
        }
        // Each pass is shifted one span past the previous one. A crafted file's times
        // can be anything in Int64: repeating must not overflow (one pass never shifts).
        let (range, rangeOverflow) = count == 0 ? (partialValue: 0, overflow: false) : latest.subtractingReportingOverflow(earliest)
        let (span, spanOverflow) = range.addingReportingOverflow(1_000_000_000)
        let (lastShift, shiftOverflow) = span.multipliedReportingOverflow(by: Int64(self.repeats - 1))
        if self.repeats > 1, rangeOverflow || spanOverflow || shiftOverflow || latest.addingReportingOverflow(lastShift).overflow {
            throw ReplaySourceError.cannotRepeat(path: path, repeats: self.repeats, earliest: earliest, latest: latest)
        }
        problems = counter.report.problems
        playback = Mutex(Playback(path: path, repeats: self.repeats, span: rangeOverflow || spanOverflow ? .max : span, speed: speed))
        total = count * Int64(self.repeats)
        progress = ProgressReporter(label: "replay \((path as NSString).lastPathComponent)", total: total)
    }

    /// Opens the recording for playing.
    /// - Throws: `RecordingFileError` when the file cannot be opened or is not a readable
    ///   recording.
    public func start() throws {
        let source = try Playback.open(path)
        playback.withLock { $0.passSource = source }
    }

    /// Records per `next`, and per read of the file.
    static let batch = 2048

    /// True once every pass was played (or a failure ended the replay).
    public var finished: Bool { playback.withLock { $0.finished } }
    /// Set when reading failed mid-replay (I/O error): the replay ended there.
    public var failure: ReplayFailure? { playback.withLock { $0.failure } }

    /// The next records (at most 2048), shifted for the current pass; under `speed`, only those
    /// already due. Empty once the replay is finished or stopped; a read error ends it and is
    /// kept in `failure`.
    public func next(timeoutSeconds: Double) -> [SensorRecord] {
        let (out, delivered, ended, failure) = playback.withLock { p in
            let out = p.next(timeoutSeconds: timeoutSeconds)
            return (out, p.delivered, p.finished && out.isEmpty, p.failure)
        }
        progress.update(delivered)
        if ended { progress.finish(delivered, summary: summary(delivered: delivered, failure: failure)) }
        return out
    }

    /// The last progress line: records played, and what was skipped or went wrong.
    func summary(delivered: Int64, failure: ReplayFailure?) -> String {
        var text = "replayed \(delivered) records"
        if !problems.isEmpty {
            text +=
                "; the file has \(problems.count) problem(s), skipped: "
                + problems.prefix(3).map(\.description).joined(separator: "; ")
                + (problems.count > 3 ? "; …" : "")
        }
        if let failure { text += "; stopped early: \(failure)" }
        return text
    }

    /// SIGTERM in the middle: nothing more is read (a recording holds nothing
    /// that would be lost); the recording is not `finished`, so a trip stays open.
    public func stop() {
        playback.withLock { p in
            p.passSource = nil
            p.pending = []
        }
    }
    public var degradedReason: String? { nil }
}

/// The replay's position: the current pass, what was read and not yet delivered, the pace.
private struct Playback {
    let path: String
    let repeats: Int
    /// One pass's time span plus a second: each pass is shifted this much past the previous one.
    let span: Int64
    let speed: Double?
    /// The current pass over the file (nil before `start`, after the end, a failure or `stop`).
    var passSource: RecordingReaderSource?
    /// Records read from the current pass and not yet delivered.
    var pending: ArraySlice<SensorRecord> = []
    var pass = 0
    var shift: Int64 = 0
    var delivered: Int64 = 0
    var finished = false
    var failure: ReplayFailure?
    /// The first record's sample time and the wall time it was delivered at (paced replay).
    var paceOrigin: (sample: SampleTime, wall: Double)?

    init(path: String, repeats: Int, span: Int64, speed: Double?) {
        self.path = path
        self.repeats = repeats
        self.span = span
        self.speed = speed
    }

    static func open(_ path: String) throws(RecordingFileError) -> RecordingReaderSource {
        RecordingReaderSource(reader: try RecordingReader(path: path), batch: ReplaySource.batch)
    }

    mutating func next(timeoutSeconds: Double) -> [SensorRecord] {
        var out: [SensorRecord] = []
        out.reserveCapacity(ReplaySource.batch)
        while out.count < ReplaySource.batch, refill(delivering: out.count), let record = pending.first {
            if let wait = paceWait(record) {
                if out.isEmpty { Thread.sleep(forTimeInterval: min(wait, max(timeoutSeconds, 0.001))) }
                break
            }
            pending.removeFirst()
            out.append(shift == 0 ? record : record.shifted(by: shift))
        }
        delivered += Int64(out.count)
        return out
    }

    /// Makes `pending` non-empty from the current pass, or starts the next pass at its end;
    /// false when nothing is left (finished, failed or stopped). `delivering`: records already
    /// taken in this call, for the count a failure reports.
    private mutating func refill(delivering: Int) -> Bool {
        while pending.isEmpty {
            guard let source = passSource else {
                if failure != nil { finished = true }  // what was read before the failure is delivered
                return false
            }
            pending = source.next(timeoutSeconds: 0)[...]
            if let error = source.failure {
                failure = .readFailed(path: path, afterRecords: delivered + Int64(delivering + pending.count), error)
                passSource = nil
                continue
            }
            guard pending.isEmpty, source.finished else { continue }
            pass += 1
            guard pass < repeats else {
                passSource = nil
                finished = true
                return false
            }
            shift = Int64(pass) * span
            do { passSource = try Self.open(path) } catch {
                failure = .cannotReopen(path: path, pass: pass + 1, error)
                passSource = nil
                finished = true
                return false
            }
        }
        return true
    }

    /// Seconds until `record` is due in a paced replay; nil when due (or not paced).
    private mutating func paceWait(_ record: SensorRecord) -> Double? {
        guard let speed else { return nil }
        let now = ProcessInfo.processInfo.systemUptime
        guard let origin = paceOrigin else {
            paceOrigin = (record.time, now)
            return nil
        }
        let wait = origin.wall + (record.time - origin.sample) / speed - now
        return wait > 0 ? wait : nil
    }
}

/// Why a replay ended before the recording's end; what was read is processed.
public enum ReplayFailure: Error, Sendable, CustomStringConvertible {
    case readFailed(path: String, afterRecords: Int64, RecordingFileError)
    case cannotReopen(path: String, pass: Int, RecordingFileError)

    public var description: String {
        switch self {
        case .readFailed(let path, let count, let error): "\(path): read failed after \(count) records: \(error)"
        case .cannotReopen(let path, let pass, let error): "\(path): cannot reopen for pass \(pass): \(error)"
        }
    }
}

/// Why a recording cannot be replayed as asked.
public enum ReplaySourceError: Error, CustomStringConvertible {
    case cannotRepeat(path: String, repeats: Int, earliest: Int64, latest: Int64)

    public var description: String {
        switch self {
        case .cannotRepeat(let path, let repeats, let earliest, let latest):
            "\(path): its record times (\(earliest) to \(latest) ns) cannot be shifted \(repeats) times without leaving the 64-bit clock"
        }
    }
}
