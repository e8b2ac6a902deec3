import BikePathCore
import CIIO
import CIIOOnDemand
import Foundation
import Logging
import Synchronization

/// The IMU through libiio: finds the device(s) with accel (and anglvel) scan elements, sets
/// the sampling frequency, reads through a buffer sized to the rate, scales each axis,
/// maps IIO timestamps onto the monotonic clock and delivers `.imu` records in batches
/// (one per buffer). Runs on its own thread; when the device or iiod goes away it
/// reconnects with backoff. Every failure is counted in `status` and logged.
public final class IIOSource: Sendable {
    public let configuration: IIOConfiguration
    private let logger: Logger
    private let state: Mutex<IMUStatus>
    private let reportedProblems = Mutex<Set<String>>([])
    private let reader = ReaderThread(name: "iio-reader")
    private var flag: StopFlag { reader.flag }

    /// Creates a source; no device is opened until it is started.
    public init(configuration: IIOConfiguration = IIOConfiguration(), logger: Logger = Logger(label: "bikepath.imu")) {
        self.configuration = configuration
        self.logger = logger
        self.state = Mutex(IMUStatus(uri: configuration.uri, requestedRateHz: configuration.samplingFrequency))
    }

    public var status: IMUStatus { state.withLock { $0 } }

    /// Starts the reader thread; `deliver` runs on it with each batch and returns false when
    /// it had to drop the batch (counted as an overrun). Call once.
    public func start(_ deliver: @escaping @Sendable ([SensorRecord]) -> Bool) {
        reader.start { [self] in run(deliver) }
    }

    /// Starts the source and returns its batches; at most `bufferSize` batches wait for the
    /// consumer, further ones are dropped and counted as overruns. The stream finishes when
    /// the source stops.
    public func batches(bufferSize: Int = 64) -> AsyncStream<[SensorRecord]> {
        reader.stream(bufferSize: bufferSize) { [self] deliver in run(deliver) }
    }

    /// Stops the reader and waits for it to close the device (at most one I/O timeout).
    public func stop() {
        reader.stop(waitingUpTo: ioTimeout(rate: configuration.samplingFrequency) + 2)
    }

    /// Asks the reader to stop and returns at once; `waitForStop` waits for it. Stopping
    /// several sources this way overlaps their waits.
    public func requestStop() { reader.flag.stop() }

    /// Waits up to `timeout` seconds for a stopped reader to end; true once it has.
    public func waitForStop(timeout: Double) -> Bool { reader.waitForExit(timeout: timeout) }

    // MARK: - Reader thread

    private func ioTimeout(rate: Double) -> Double {
        let bufferPeriod = Double(configuration.bufferSamples(rate: rate)) / max(rate, 0.001)
        return max(configuration.timeout, 1, 3 * bufferPeriod)
    }

    private func run(_ deliver: @escaping @Sendable ([SensorRecord]) -> Bool) {
        var backoff = Backoff(baseSeconds: configuration.initialBackoff, capSeconds: configuration.maximumBackoff)
        let throttle = LogThrottle()
        var meter = SampleRateMeter(nominalRate: configuration.samplingFrequency)
        while flag.isRunning {
            guard let context = iio_create_context_from_uri(configuration.uri) else {
                // libiio is loaded here, on the first open: when it cannot be, say why.
                let reason = bikepath_iio_unavailable().map { String(cString: $0) } ?? String(cString: strerror(errno))
                reader.retryAfterFailedConnect(
                    state, error: "cannot open IIO context \(configuration.uri): \(reason)",
                    warning: "cannot open IIO context \(configuration.uri) (\(reason))",
                    backoff: &backoff, throttle: throttle, logger: logger)
                continue
            }
            let lost = session(context: context, backoff: &backoff, meter: &meter, deliver)
            iio_context_destroy(context)
            state.withLock { $0.connected = false }
            guard flag.isRunning else { break }
            let delay = backoff.next()
            logger.warning("IMU at \(configuration.uri): \(lost); reopening in \(delay) s")
            flag.sleep(delay)
        }
    }

    /// Discovers, opens and reads the device(s) until something fails; returns what did.
    private func session(
        context: OpaquePointer, backoff: inout Backoff, meter: inout SampleRateMeter,
        _ deliver: @escaping @Sendable ([SensorRecord]) -> Bool
    ) -> String {
        let rate = configuration.samplingFrequency
        _ = iio_context_set_timeout(context, UInt32(ioTimeout(rate: rate) * 1000))
        let plan: IIODevicePlan
        switch IIODevicePlan.choose(context: context, configuration: configuration) {
        case .failed(let message, let layouts):
            report(layouts)
            state.withLock {
                $0.devices = layouts.map(\.info)
                $0.lastError = message
                $0.connectFailures += 1
            }
            return message
        case .chosen(let chosen, let layouts):
            report(layouts)
            plan = chosen
        }
        let configured = setRate(rate, on: plan)
        let samples = configuration.bufferSamples(rate: configured)
        var readers: [IIODeviceReader] = []
        do throws(IIOReaderError) {
            for layout in plan.layouts { readers.append(try IIODeviceReader(layout: layout, samplesPerBuffer: samples)) }
        } catch {
            state.withLock {
                $0.readErrors += 1
                $0.lastError = error.message
            }
            return error.message
        }
        state.withLock {
            $0.connected = true
            $0.connects += 1
            $0.devices = plan.layouts.map(\.info)
            $0.configuredRateHz = configured
            $0.bufferSamples = samples
        }
        logger.info(
            "reading IMU \(plan.layouts.map { "\($0.id) (\($0.name))" }.joined(separator: " + ")) at \(configured) Hz, \(samples) samples per buffer"
        )
        meter.nominalRate = configured
        meter.restartWindow()
        return read(readers, rate: configured, backoff: &backoff, meter: &meter, deliver)
    }

    private func read(
        _ readers: [IIODeviceReader], rate: Double, backoff: inout Backoff, meter: inout SampleRateMeter,
        _ deliver: @escaping @Sendable ([SensorRecord]) -> Bool
    ) -> String {
        let period = Int64(1e9 / max(rate, 0.001))
        var batches = [IIODeviceReader.Batch](repeating: .init(), count: readers.count)
        var timeoutsInRow = 0
        let throttle = LogThrottle()
        var delivered = false
        while flag.isRunning {
            var got = true
            for (i, reader) in readers.enumerated() {
                let outcome = reader.refill()
                let edge = EdgeClock.pair()
                switch outcome {
                case .samples(let count):
                    timeoutsInRow = 0
                    if count < reader.samplesPerBuffer {
                        let n = state.withLock { s in
                            s.shortReads += 1; return s.shortReads
                        }
                        if throttle.shouldLog(count: n) {
                            logger.warning(
                                "short IIO read on \(reader.layout.id): \(count) of \(reader.samplesPerBuffer) samples (\(n) so far)")
                        }
                    }
                    reader.decode(count: count, edge: edge, period: period, into: &batches[i])
                case .timedOut:
                    timeoutsInRow += 1
                    let n = state.withLock { s in
                        s.timeouts += 1
                        s.lastError = "IIO read on \(reader.layout.id) timed out"
                        return s.timeouts
                    }
                    if throttle.shouldLog(count: n) {
                        logger.warning("IIO read on \(reader.layout.id) timed out (\(timeoutsInRow) in a row, \(n) so far); retrying")
                    }
                    if timeoutsInRow >= configuration.timeoutsBeforeReconnect {
                        return "\(timeoutsInRow) timeouts in a row on \(reader.layout.id)"
                    }
                    got = false
                case .failed(let code):
                    let message = "IIO read on \(reader.layout.id) failed: \(String(cString: strerror(code)))"
                    state.withLock {
                        $0.readErrors += 1
                        $0.lastError = message
                    }
                    return message
                }
            }
            guard got, !batches[0].times.isEmpty else { continue }
            if !delivered {
                delivered = true
                backoff.reset()
            }
            let before = (gaps: meter.gaps, missing: meter.missingSamples)
            for t in batches[0].deviceTimes { meter.add(t) }
            let records = makeRecords(batches, separateGyro: readers.count > 1)
            let accepted = deliver(records)
            let reanchors = readers.reduce(0) { $0 + $1.mapper.reanchors }
            state.withLock { s in
                s.samples += records.count
                s.buffers += 1
                s.gaps += meter.gaps - before.gaps
                s.missingSamples += meter.missingSamples - before.missing
                s.measuredRateHz = meter.measuredRateHz ?? s.measuredRateHz
                s.timestampReanchors = reanchors
                if !accepted {
                    s.overruns += 1
                    s.droppedSamples += records.count
                }
            }
        }
        return "stopped"
    }

    private func makeRecords(_ batches: [IIODeviceReader.Batch], separateGyro: Bool) -> [SensorRecord] {
        let main = batches[0]
        let gyro: [Vector3?] =
            separateGyro
            ? pairNearest(accelTimes: main.times, gyroTimes: batches[1].times, gyro: batches[1].gyro)
            : (main.gyro.isEmpty ? main.times.map { _ in nil } : main.gyro.map { $0 })
        return main.times.indices.map { k in
            .imu(IMUSample(time: SampleTime(nanoseconds: main.times[k]), accel: main.accel[k], gyro: gyro[k]))
        }
    }

    /// Writes the sampling frequency to each device; returns what the accel device reports.
    private func setRate(_ rate: Double, on plan: IIODevicePlan) -> Double {
        var result = rate
        for (i, layout) in plan.layouts.enumerated() {
            guard iio_device_find_attr(layout.device, "sampling_frequency") != nil else {
                logger.notice("\(layout.id) has no sampling_frequency attribute; assuming \(rate) Hz")
                continue
            }
            let rc =
                rate == rate.rounded()
                ? iio_device_attr_write_longlong(layout.device, "sampling_frequency", Int64(rate))
                : iio_device_attr_write_double(layout.device, "sampling_frequency", rate)
            if rc < 0 {
                logger.warning("cannot set \(layout.id) sampling_frequency to \(rate): \(String(cString: strerror(-rc)))")
            }
            var actual = 0.0
            if i == 0, iio_device_attr_read_double(layout.device, "sampling_frequency", &actual) == 0, actual > 0 {
                result = actual
            }
        }
        return result
    }

    /// Counts and logs each ignored or unreadable scan element once per device and channel.
    private func report(_ layouts: [IIODeviceLayout]) {
        for layout in layouts {
            for problem in layout.problems {
                let key = "\(layout.id)/\(problem.channelID)"
                let isNew = reportedProblems.withLock { $0.insert(key).inserted }
                guard isNew else { continue }
                switch problem {
                case .unknownType:
                    state.withLock { $0.unknownChannels += 1 }
                    logger.warning("\(layout.id) (\(layout.name)): \(problem.logLine)")
                case .unsupportedFormat:
                    state.withLock { $0.unsupportedFormats += 1 }
                    logger.error("\(layout.id) (\(layout.name)): \(problem.logLine)")
                case .unusedType:
                    logger.debug("\(layout.id) (\(layout.name)): \(problem.logLine)")
                }
            }
        }
    }
}
