import BikePathCore
import CGPS
import Foundation
import Logging
import Synchronization

/// GNSS from gpsd through libgps: watches JSON (TPV, SKY, VERSION, DEVICES) for the fix
/// state and asks gpsd to relay the raw NMEA, which is what a recording stores and the core
/// decodes. The blocking libgps loop runs on its own thread; each line is stamped with
/// CLOCK_MONOTONIC as it is read. When gpsd goes away the source reconnects with
/// exponential backoff, forever, without anyone restarting the daemon.
public final class GPSDSource: Sendable {
    public let configuration: GPSDConfiguration
    private let logger: Logger
    private let state: Mutex<GNSSStatus>
    private let reader = ReaderThread(name: "gpsd-reader")
    private var flag: StopFlag { reader.flag }

    /// Creates a source; nothing is connected until it is started.
    public init(
        configuration: GPSDConfiguration = GPSDConfiguration(),
        logger: Logger = Logger(label: "bikepath.gnss")
    ) {
        self.configuration = configuration
        self.logger = logger
        self.state = Mutex(GNSSStatus(host: configuration.host, port: configuration.port))
    }

    /// A snapshot of the connection, fix state and counters.
    public var status: GNSSStatus { state.withLock { $0 } }

    /// Starts the reader thread; `deliver` runs on it and returns false when it had to drop
    /// the event (counted as `deliveryDrops`). Call once.
    public func start(_ deliver: @escaping @Sendable (GNSSEvent) -> Bool) {
        reader.start { [self] in run(deliver) }
    }

    /// Starts the source and returns its events. The buffer holds `bufferSize` events; when
    /// the consumer falls further behind, the oldest are kept and the new ones are counted
    /// as dropped, never silently lost. The stream finishes when the source stops.
    public func events(bufferSize: Int = 4096) -> AsyncStream<GNSSEvent> {
        reader.stream(bufferSize: bufferSize) { [self] deliver in run(deliver) }
    }

    /// Stops the reader and waits (up to 2 s) for its thread to close the connection.
    public func stop() {
        reader.stop(waitingUpTo: 2)
    }

    /// Asks the reader to stop and returns at once; `waitForStop` waits for it. Stopping
    /// several sources this way overlaps their waits.
    public func requestStop() { reader.flag.stop() }

    /// Waits up to `timeout` seconds for a stopped reader to end; true once it has.
    public func waitForStop(timeout: Double) -> Bool { reader.waitForExit(timeout: timeout) }

    // MARK: - Reader thread

    private static let messageCapacity = 16_384

    private func run(_ deliver: @escaping @Sendable (GNSSEvent) -> Bool) {
        var backoff = Backoff(baseSeconds: configuration.initialBackoff, capSeconds: configuration.maximumBackoff)
        let gps = UnsafeMutablePointer<gps_data_t>.allocate(capacity: 1)
        let message = UnsafeMutablePointer<CChar>.allocate(capacity: Self.messageCapacity)
        defer {
            gps.deallocate()
            message.deallocate()
        }
        var session = SessionState()
        let throttle = LogThrottle()
        while flag.isRunning {
            memset(gps, 0, MemoryLayout<gps_data_t>.size)
            let rc = gps_open(configuration.host, String(configuration.port), gps)
            if rc != 0 {
                let reason = String(cString: gps_errstr(errno))
                let address = "\(configuration.host):\(configuration.port)"
                reader.retryAfterFailedConnect(
                    state, error: "cannot connect to gpsd at \(address): \(reason)",
                    warning: "gpsd at \(address) unreachable (\(reason))",
                    backoff: &backoff, throttle: throttle, logger: logger)
                continue
            }
            var watch = UInt32(WATCH_ENABLE | WATCH_JSON)
            if configuration.relayNMEA { watch |= UInt32(WATCH_NMEA) }
            _ = gps_stream(gps, watch, nil)
            state.withLock {
                $0.connected = true
                $0.connects += 1
            }
            logger.info("connected to gpsd at \(configuration.host):\(configuration.port)")
            send(.connection(true), deliver)
            session = SessionState()

            let ended = readSession(gps, message, &session, &backoff, deliver)
            gps_close(gps)
            state.withLock {
                $0.connected = false
                if ended { $0.disconnects += 1 }
            }
            send(.connection(false), deliver)
            guard flag.isRunning else { break }
            let delay = backoff.next()
            logger.warning("lost gpsd at \(configuration.host):\(configuration.port); reconnecting in \(delay) s")
            flag.sleep(delay)
        }
    }

    /// Per-connection memory: the epoch last seen, so duplicate TPVs are dropped.
    private struct SessionState {
        var lastEpoch: Int64?
        var deliveredData = false
    }

    /// Reads lines until the connection ends (returns true) or the source stops (false).
    private func readSession(
        _ gps: UnsafeMutablePointer<gps_data_t>, _ message: UnsafeMutablePointer<CChar>,
        _ session: inout SessionState, _ backoff: inout Backoff,
        _ deliver: @escaping @Sendable (GNSSEvent) -> Bool
    ) -> Bool {
        let throttle = LogThrottle()
        while flag.isRunning {
            guard gps_waiting(gps, 500_000) else { continue }
            gps.pointee.set = 0
            message[0] = 0
            let n = gps_read(gps, message, Int32(Self.messageCapacity))
            let receivedAt = EdgeClock.monotonic()
            if n < 0 {
                // libgps copies the line before parsing it: a line present means gpsd sent
                // something libgps could not parse; no line means the socket closed.
                guard message[0] != 0 else { return true }
                protocolError(message, throttle)
                continue
            }
            if n == 0 { continue }
            if !session.deliveredData {
                session.deliveredData = true
                backoff.reset()
            }
            handleLine(gps, message, receivedAt, &session, throttle, deliver)
        }
        return false
    }

    private func handleLine(
        _ gps: UnsafeMutablePointer<gps_data_t>, _ message: UnsafeMutablePointer<CChar>,
        _ receivedAt: SampleTime, _ session: inout SessionState, _ throttle: LogThrottle,
        _ deliver: @escaping @Sendable (GNSSEvent) -> Bool
    ) {
        switch UInt8(bitPattern: message[0]) {
        case UInt8(ascii: "$"), UInt8(ascii: "!"):
            let sentence = Self.trimmedLine(message)
            state.withLock { $0.sentences += 1 }
            send(.record(.nmea(receivedAt, sentence)), deliver)
        case UInt8(ascii: "{"):
            handleJSON(gps, message, receivedAt, &session, deliver)
        default:
            protocolError(message, throttle)
        }
    }

    private func handleJSON(
        _ gps: UnsafeMutablePointer<gps_data_t>, _ message: UnsafeMutablePointer<CChar>,
        _ receivedAt: SampleTime, _ session: inout SessionState,
        _ deliver: @escaping @Sendable (GNSSEvent) -> Bool
    ) {
        let set = gps.pointee.set
        if Self.hasClass(message, "TPV") {
            handleTPV(gps, receivedAt, &session, deliver)
        } else if Self.hasClass(message, "SKY") {
            let used = gps.pointee.satellites_used
            let seen = gps.pointee.satellites_visible
            let hdop = gps.pointee.dop.hdop
            state.withLock {
                if used >= 0 { $0.satellitesUsed = Int(used) }
                if seen >= 0 { $0.satellitesSeen = Int(seen) }
                $0.hdop = hdop.isFinite ? hdop : nil
            }
        } else if set & UInt64(VERSION_SET) != 0 {
            let release = withUnsafeBytes(of: gps.pointee.version.release) { Self.string(from: $0) }
            state.withLock { $0.gpsdVersion = release }
            logger.info("gpsd version \(release)")
        } else if set & UInt64(DEVICELIST_SET) != 0 {
            let count = Int(max(0, min(gps.pointee.devices.ndevices, MAXUSERDEVS)))
            let paths = withUnsafeBytes(of: gps.pointee.devices.list) { raw -> [String] in
                let list = raw.bindMemory(to: devconfig_t.self)
                return (0..<count).map { i in withUnsafeBytes(of: list[i].path) { Self.string(from: $0) } }
            }
            state.withLock { $0.devices = paths }
        }
    }

    private func handleTPV(
        _ gps: UnsafeMutablePointer<gps_data_t>, _ receivedAt: SampleTime,
        _ session: inout SessionState, _ deliver: @escaping @Sendable (GNSSEvent) -> Bool
    ) {
        let raw = gps.pointee.fix
        let mode = FixMode(rawValue: Int(raw.mode)) ?? .unknown
        let epoch: Int64? =
            raw.time.tv_sec == 0
            ? nil
            : Int64(raw.time.tv_sec) * 1_000_000_000 + Int64(raw.time.tv_nsec)
        let fix = GNSSFix(
            receivedAt: receivedAt, time: epoch.map(UTCTime.init(nanosecondsSince1970:)), mode: mode,
            latitude: Self.finite(raw.latitude), longitude: Self.finite(raw.longitude),
            altitudeMSL: Self.finite(raw.altMSL), speed: Self.finite(raw.speed), track: Self.finite(raw.track),
            satellitesUsed: gps.pointee.satellites_used > 0 ? Int(gps.pointee.satellites_used) : nil)
        let realtime = EdgeClock.realtimeNanoseconds()
        let duplicate = epoch != nil && epoch == session.lastEpoch
        if !duplicate { session.lastEpoch = epoch }
        let plausible = configuration.plausibility.isPlausible(mode: mode, time: fix.time)
        state.withLock { s in
            if duplicate { s.duplicateEpochReports += 1 } else if epoch != nil { s.epochs += 1 }
            s.fixMode = mode
            if mode >= .twoD {
                s.lastFixReceivedAt = receivedAt
                s.lastFixTime = fix.time
                s.lastFix = fix
            }
            if plausible, let epoch {
                s.clockOffsetSeconds = Double(epoch - realtime) / 1e9
            } else if mode == .threeD {
                s.implausibleFixTimes += 1
            }
        }
        if !duplicate { send(.fix(fix), deliver) }
    }

    private func protocolError(_ message: UnsafeMutablePointer<CChar>, _ throttle: LogThrottle) {
        let count = state.withLock { s in
            s.protocolErrors += 1
            s.lastError = "gpsd sent a line that is neither JSON nor NMEA"
            return s.protocolErrors
        }
        if throttle.shouldLog(count: count) {
            let line = String(Self.trimmedLine(message).prefix(80))
            logger.warning("gpsd sent an unparseable line (\(count) so far): \(line.debugDescription)")
        }
    }

    private func send(_ event: GNSSEvent, _ deliver: @Sendable (GNSSEvent) -> Bool) {
        if !deliver(event) { state.withLock { $0.deliveryDrops += 1 } }
    }

    // MARK: - C string helpers

    private static func hasClass(_ message: UnsafeMutablePointer<CChar>, _ name: String) -> Bool {
        let prefix = "{\"class\":\"\(name)\""
        return prefix.utf8.withContiguousStorageIfAvailable { p in
            strncmp(message, UnsafeRawPointer(p.baseAddress!).assumingMemoryBound(to: CChar.self), p.count) == 0
        } ?? false
    }

    static func trimmedLine(_ message: UnsafeMutablePointer<CChar>) -> String {
        var line = String(cString: message)
        while let last = line.unicodeScalars.last, last == "\r" || last == "\n" { line.unicodeScalars.removeLast() }
        return line
    }

    private static func string(from raw: UnsafeRawBufferPointer) -> String {
        let bytes = raw.prefix { $0 != 0 }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
}
