import BikePathDaemon
import BikePathSensors

/// The closing line of `bikepathd import`: what was read into the recording.
public enum ImportText {
    public static func gpsdLog(_ output: String, _ s: GpsdLogImporter.Statistics) -> String {
        "\(output): \(s.sentences) sentences from \(s.lines) lines (\(s.commentLines) comments, \(s.junkLines) lines with non-NMEA bytes)"
    }

    public static func gopro(_ output: String, _ s: GoProCSVImporter.Statistics) -> String {
        "\(output): \(s.imuSamples) IMU samples, \(s.gpsRows) GPS rows as \(s.nmeaSentences) NMEA sentences, "
            + "\(s.imuTimeRepairs) overlapping IMU packets re-spaced"
    }

    /// The files of `import gopro PREFIX`; a prefix with neither accl nor gps is an error.
    public static func goproFiles(prefix: String) throws(ImportError) -> GoProCSVImporter.Files {
        let files = GoProCSVImporter.Files(prefix: prefix)
        if files.accl == nil && files.gps == nil {
            throw ImportError(path: prefix, message: "no \(prefix)-accl.csv or \(prefix)-gps.csv found")
        }
        return files
    }
}
