import ArgumentParser
import BikePathCore
import BikePathSensors
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Hidden: runs both live sources for a while, consuming their streams the way the
/// daemon does (NMEA through the core's decoder), then prints counters and its own CPU
/// time and peak RSS as JSON. Used by bench/live.sh.
struct DrainSourcesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drain-sources", abstract: "Benchmark helper: drain the live sources.", shouldDisplay: false)

    @OptionGroup var sensors: SensorOptions
    @Option(help: "Seconds to run.") var seconds: Double = 60

    struct Summary: Encodable {
        var seconds: Double
        var cpuSeconds: Double
        var cpuShareOfOneCore: Double
        var maxRSSKilobytes: Int
        var imuSamplesConsumed: Int
        var nmeaSentencesConsumed: Int
        var fixesDecoded: Int
        var gnss: GNSSStatus
        var imu: IMUStatus
    }

    func run() async throws {
        var logger = Logger(label: "bikepath.drain")
        logger.logLevel = .warning
        let gnss = GPSDSource(configuration: sensors.gpsd, logger: logger)
        let imu = IIOSource(configuration: sensors.iio, logger: logger)
        let wallStart = EdgeClock.monotonic()
        let cpuStart = Self.cpuSeconds()
        let gnssEvents = gnss.events()
        let imuBatches = imu.batches()
        let deadline = UInt64(seconds * 1e9)
        async let nmea: (Int, Int) = {
            var decoder = NMEADecoder()
            var sentences = 0, fixes = 0
            for await event in gnssEvents {
                if case .record(.nmea(let t, let s)) = event {
                    sentences += 1
                    fixes += decoder.decode(sentence: s, receivedAt: t).count
                }
            }
            return (sentences, fixes)
        }()
        async let samples: Int = {
            var count = 0
            for await batch in imuBatches { count += batch.count }
            return count
        }()
        try await Task.sleep(nanoseconds: deadline)
        gnss.stop()
        imu.stop()
        let (sentences, fixes) = await nmea
        let imuCount = await samples
        let wall = EdgeClock.monotonic() - wallStart
        let cpu = Self.cpuSeconds() - cpuStart
        let summary = Summary(seconds: wall, cpuSeconds: cpu, cpuShareOfOneCore: cpu / wall, maxRSSKilobytes: Self.maxRSS(),
                              imuSamplesConsumed: imuCount, nmeaSentencesConsumed: sentences, fixesDecoded: fixes,
                              gnss: gnss.status, imu: imu.status)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        print(String(decoding: try encoder.encode(summary), as: UTF8.self))
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }

    static func maxRSS() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss)
    }
}
