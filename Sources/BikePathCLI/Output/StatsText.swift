import BikePathDaemon
import BikePathReview
import BikePathStore

/// `bikepathd stats`' text: totals over all trips and the milestones reached.
public enum StatsText {
    public static func render(_ s: StoreStatistics) -> String {
        func hoursAndMinutes(_ seconds: Double) -> String { "\(Int(seconds) / 3600) h \(Int(seconds) % 3600 / 60) min" }
        var lines = [
            "trips: \(s.trips)",
            "distance: \((s.distanceMeters / 10).rounded() / 100) km",
            "time: \(hoursAndMinutes(s.elapsedSeconds)) (moving \(hoursAndMinutes(s.movingSeconds)))",
            "CO₂ avoided: \(ReviewFormat.co2(s.co2AvoidedGrams))",
        ]
        lines += s.milestones.map { "milestone: \($0.thresholdMeters / 1000) km reached on trip \($0.tripID)" }
        return lines.joined(separator: "\n")
    }
}
