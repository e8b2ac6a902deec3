import BikePathAPI
import BikePathCore
import BikePathDaemon
import BikePathSensors
import Foundation
import Logging

/// `BikePathBench live-drain [--seconds S] --gpsd-host H --gpsd-port P --iio-uri U
/// [--iio-device D] [--imu-rate HZ]` (bench/live.sh): both live sources through
/// `LiveSources` and the `PipelineDriver`, as `run` reads them, NMEA through the
/// core's decoder; prints counters, its CPU time and peak RSS as JSON.
enum LiveDrain {
    struct Summary: Encodable {
        var seconds: Double
        var cpuSeconds: Double
        var cpuShareOfOneCore: Double
        var maxRSSKilobytes: Int
        var imuSamplesConsumed = 0
        var nmeaSentencesConsumed = 0
        var fixesDecoded = 0
        var gnss: GNSSStatus
        var imu: IMUStatus
        // snake_case with the unit in the key (docs/json.md); the sources' own keys as `diagnose --json` prints them.
        enum CodingKeys: String, CodingKey {
            case seconds = "elapsed_s", cpuSeconds = "cpu_s", cpuShareOfOneCore = "cpu_share_of_one_core", maxRSSKilobytes = "max_rss_kib"
            case imuSamplesConsumed = "imu_samples_consumed", nmeaSentencesConsumed = "nmea_sentences_consumed"
            case fixesDecoded = "fixes_decoded", gnss, imu
        }
    }

    static func run(_ options: BenchOptions) throws {
        var logger = Logger(label: "bikepath.bench.live")
        logger.logLevel = .warning
        let gnss = GPSDConfiguration(
            host: options.string("gpsd-host") ?? "127.0.0.1",
            port: try options.int("gpsd-port", default: 2947))
        let imu = IIOConfiguration(
            uri: options.string("iio-uri") ?? "local:", deviceName: options.string("iio-device"),
            samplingFrequency: try options.double("imu-rate", default: 200))
        let seconds = try options.double("seconds", default: 60)
        let sources = LiveSources(gnss: gnss, imu: imu, logger: logger)
        let wallStart = EdgeClock.monotonic(), cpuStart = ResourceUsage.cpuSeconds()
        var decoder = NMEADecoder()
        var imuCount = 0, sentences = 0, fixes = 0
        try sources.start()
        try PipelineDriver(source: sources).drive(shouldStop: { EdgeClock.monotonic() - wallStart >= seconds }) { records in
            for record in records {
                switch record {
                case .imu: imuCount += 1
                case .nmea(let t, let sentence):
                    sentences += 1
                    fixes += decoder.decode(sentence: sentence, receivedAt: t).count
                case .marker, .label: break
                }
            }
        }
        let wall = EdgeClock.monotonic() - wallStart, cpu = ResourceUsage.cpuSeconds() - cpuStart
        let summary = Summary(
            seconds: wall, cpuSeconds: cpu, cpuShareOfOneCore: cpu / wall,
            maxRSSKilobytes: ResourceUsage.maxRSSKilobytes(), imuSamplesConsumed: imuCount,
            nmeaSentencesConsumed: sentences, fixesDecoded: fixes,
            gnss: sources.gnss.status, imu: sources.imu.status)
        print(try JSONText.snakeCaseDocument(summary))
    }
}
