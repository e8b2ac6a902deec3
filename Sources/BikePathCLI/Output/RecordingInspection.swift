import BikePathCore
import BikePathDaemon
import BikePathSensors

/// `bikepathd inspect`: a recording's header, record counts, time span and damage.
public struct RecordingInspection: Sendable {
    public var text: String
    /// Problems found (truncation, corruption); what could be read is counted.
    public var problems: [String]

    /// - Throws: `RecordingFileError` when the file is not a readable recording.
    public init(path: String) throws {
        let reader = try RecordingReader(path: path)
        var first: SampleTime?, last: SampleTime?
        var backwards = 0
        let report = try reader.forEach { r in
            if first == nil { first = r.time }
            if let l = last, r.time < l { backwards += 1 }
            last = r.time
        }
        let s = report.statistics
        var lines = ["file: \(path)", "format: version \(RecordingFormat.version)"]
        lines.append(
            reader.header.text + "records: \(s.nmeaSentences) NMEA, \(s.imuSamples) IMU samples in \(s.imuBlocks) blocks, "
                + "\(s.markers) markers, \(s.labels) rider labels, \(s.unknownRecordsSkipped) unknown skipped")
        if let first, let last { lines.append("time: \(first.seconds) s to \(last.seconds) s (\(last - first) s)") }
        if backwards > 0 { lines.append("note: \(backwards) records earlier than the one before them") }
        lines += report.problems.map { "problem: \($0)" }
        lines.append(report.problems.isEmpty ? "status: intact" : "status: damaged (\(report.problems.count) problem(s))")
        text = lines.joined(separator: "\n")
        problems = report.problems.map { "\($0)" }
    }
}
