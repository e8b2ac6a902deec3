import BikePathCore
import CIIO
#if canImport(Glibc)
    import Glibc
#endif

/// One open IIO buffer on one device, and the decoding of its records into samples.
final class IIODeviceReader {
    let layout: IIODeviceLayout
    let buffer: OpaquePointer
    let samplesPerBuffer: Int
    var mapper: IIOTimestampMapper
    private let timestamp: IIOElement?
    private let accel: [IIOElement]
    private let gyro: [IIOElement]

    /// Sampled values of one buffer, times already on the monotonic clock.
    struct Batch {
        var times: [Int64] = []
        /// Device timestamps (or synthesized ones), for rate and gap measurement.
        var deviceTimes: [Int64] = []
        var accel: [Vector3] = []
        var gyro: [Vector3] = []
    }

    enum Refill {
        case samples(Int)
        case timedOut
        case failed(Int32)
    }

    /// Enables the layout's scan elements (only those), and opens a buffer.
    init(layout: IIODeviceLayout, samplesPerBuffer: Int) throws(IIOReaderError) {
        self.layout = layout
        self.samplesPerBuffer = samplesPerBuffer
        let device = layout.device
        for index in 0..<iio_device_get_channels_count(device) {
            if let channel = iio_device_get_channel(device, index), iio_channel_is_scan_element(channel) {
                iio_channel_disable(channel)
            }
        }
        for element in layout.elements { iio_channel_enable(element.channel) }
        guard let buffer = iio_device_create_buffer(device, samplesPerBuffer, false) else {
            throw IIOReaderError(code: errno, what: "cannot open a \(samplesPerBuffer)-sample buffer on \(layout.id)")
        }
        self.buffer = buffer
        mapper = IIOTimestampMapper(clock: layout.timestampClock)
        timestamp = layout.elements.first { $0.role == .timestamp }
        accel = [.accelX, .accelY, .accelZ].compactMap { r in layout.elements.first { $0.role == r } }
        gyro = [.gyroX, .gyroY, .gyroZ].compactMap { r in layout.elements.first { $0.role == r } }
    }

    deinit { iio_buffer_destroy(buffer) }

    /// Blocks until the buffer is full, the libiio timeout passes, or the device fails.
    func refill() -> Refill {
        let n = iio_buffer_refill(buffer)
        if n >= 0 { return .samples(n / max(1, iio_buffer_step(buffer))) }
        let code = Int32(-n)
        return code == ETIMEDOUT ? .timedOut : .failed(code)
    }

    /// Decodes the first `count` records of the buffer. `edge` is when the refill returned;
    /// `period` the nominal sample period in ns (for devices without timestamps).
    func decode(count: Int, edge: (monotonic: Int64, realtime: Int64), period: Int64, into batch: inout Batch) {
        batch = Batch()
        guard count > 0 else { return }
        let step = iio_buffer_step(buffer)
        func bases(_ elements: [IIOElement]) -> [UnsafeMutableRawPointer] {
            elements.map { iio_buffer_first(buffer, $0.channel)! }
        }
        let accelBases = bases(accel)
        let gyroBases = bases(gyro)
        let timestampBase = timestamp.map { iio_buffer_first(buffer, $0.channel)! }
        batch.accel.reserveCapacity(count)
        batch.deviceTimes.reserveCapacity(count)
        if gyro.count == 3 { batch.gyro.reserveCapacity(count) }
        for k in 0..<count {
            let offset = k * step
            if accel.count == 3 { batch.accel.append(Self.vector(accel, accelBases, offset)) }
            if gyro.count == 3 { batch.gyro.append(Self.vector(gyro, gyroBases, offset)) }
            if let timestamp, let timestampBase {
                batch.deviceTimes.append(timestamp.format.value(at: timestampBase + offset))
            } else {
                batch.deviceTimes.append(edge.monotonic - Int64(count - 1 - k) * period)
            }
        }
        let shift = timestamp == nil ? 0 : mapper.offset(newest: batch.deviceTimes[count - 1], edge: edge)
        batch.times = batch.deviceTimes.map { $0 + shift }
    }

    @inline(__always)
    private static func vector(_ elements: [IIOElement], _ bases: [UnsafeMutableRawPointer], _ offset: Int) -> Vector3 {
        Vector3(
            x: elements[0].scaling.apply(elements[0].format.value(at: bases[0] + offset)),
            y: elements[1].scaling.apply(elements[1].format.value(at: bases[1] + offset)),
            z: elements[2].scaling.apply(elements[2].format.value(at: bases[2] + offset)))
    }
}

struct IIOReaderError: Error {
    let code: Int32
    let what: String
    var message: String { "\(what): \(String(cString: strerror(code)))" }
}

/// Pairs accelerometer samples with the gyro samples of a second device: each accel
/// sample takes the gyro sample nearest in time (both on the monotonic clock).
func pairNearest(accelTimes: [Int64], gyroTimes: [Int64], gyro: [Vector3]) -> [Vector3?] {
    guard !gyroTimes.isEmpty else { return accelTimes.map { _ in nil } }
    var j = 0
    return accelTimes.map { t in
        while j + 1 < gyroTimes.count, abs(gyroTimes[j + 1] - t) <= abs(gyroTimes[j] - t) { j += 1 }
        return gyro[j]
    }
}
