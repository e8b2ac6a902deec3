import CIIO

/// What the source reads a scan element as.
enum IIORole: Int, Sendable, CaseIterable {
    case accelX, accelY, accelZ, gyroX, gyroY, gyroZ, timestamp
}

/// One scan element the source reads.
struct IIOElement {
    let channel: OpaquePointer
    let id: String
    let role: IIORole
    let format: IIOScanFormat
    let scaling: IIOScaling
}

/// A scan element the source does not read, and why (for the log and the counters).
enum IIOChannelProblem: Equatable {
    case unknownType(String)
    case unsupportedFormat(String, IIOScanFormat, String)
    case unusedType(String)

    var channelID: String {
        switch self {
        case .unknownType(let id), .unsupportedFormat(let id, _, _), .unusedType(let id): id
        }
    }

    var logLine: String {
        switch self {
        case .unknownType(let id): "scan element \(id) has a channel type libiio does not know; ignored"
        case .unsupportedFormat(let id, let f, let why): "scan element \(id) has format \(f.description): \(why); not readable"
        case .unusedType(let id): "scan element \(id) is not an accelerometer or gyro axis; ignored"
        }
    }
}

/// The scan elements of one IIO device, classified.
struct IIODeviceLayout {
    let device: OpaquePointer
    let id: String
    let name: String
    let elements: [IIOElement]
    let problems: [IIOChannelProblem]
    let timestampClock: IIOTimestampClock

    var hasAccel: Bool { [.accelX, .accelY, .accelZ].allSatisfy(has) }
    var hasGyro: Bool { [.gyroX, .gyroY, .gyroZ].allSatisfy(has) }
    func has(_ role: IIORole) -> Bool { elements.contains { $0.role == role } }
    /// Accel or gyro axes present but unreadable, so the device cannot serve that sensor.
    var unreadableAxes: [IIOChannelProblem] {
        problems.filter {
            if case .unsupportedFormat(let id, _, _) = $0 { return id.hasPrefix("accel") || id.hasPrefix("anglvel") }
            return false
        }
    }

    init(device: OpaquePointer) {
        self.device = device
        id = iio_device_get_id(device).map { String(cString: $0) } ?? "?"
        name = iio_device_get_name(device).map { String(cString: $0) } ?? ""
        var elements: [IIOElement] = []
        var problems: [IIOChannelProblem] = []
        for index in 0..<iio_device_get_channels_count(device) {
            guard let channel = iio_device_get_channel(device, index),
                iio_channel_is_scan_element(channel), !iio_channel_is_output(channel)
            else { continue }
            let channelID = iio_channel_get_id(channel).map { String(cString: $0) } ?? "?"
            guard let role = Self.role(type: iio_channel_get_type(channel), modifier: iio_channel_get_modifier(channel)) else {
                problems.append(
                    iio_channel_get_type(channel) == IIO_CHAN_TYPE_UNKNOWN
                        ? .unknownType(channelID) : .unusedType(channelID))
                continue
            }
            let format = Self.format(of: channel)
            if let why = format.unsupportedReason {
                problems.append(.unsupportedFormat(channelID, format, why))
                continue
            }
            let scaling =
                role == .timestamp
                ? IIOScaling()
                : IIOScaling(scale: Self.attribute(channel, "scale") ?? 1, offset: Self.attribute(channel, "offset") ?? 0)
            elements.append(IIOElement(channel: channel, id: channelID, role: role, format: format, scaling: scaling))
        }
        self.elements = elements
        self.problems = problems
        timestampClock = IIOTimestampClock(sysfs: Self.deviceAttribute(device, "current_timestamp_clock"))
    }

    var info: IMUDeviceInfo {
        IMUDeviceInfo(
            id: id, name: name, channels: elements.map(\.id), ignoredChannels: problems.map(\.channelID),
            timestampClock: has(.timestamp) ? timestampClock.rawValue : nil)
    }

    static func role(type: iio_chan_type, modifier: iio_modifier) -> IIORole? {
        let axis: Int? =
            switch modifier {
            case IIO_MOD_X: 0
            case IIO_MOD_Y: 1
            case IIO_MOD_Z: 2
            default: nil
            }
        switch type {
        case IIO_TIMESTAMP: return .timestamp
        case IIO_ACCEL: return axis.map { IIORole(rawValue: IIORole.accelX.rawValue + $0)! }
        case IIO_ANGL_VEL: return axis.map { IIORole(rawValue: IIORole.gyroX.rawValue + $0)! }
        default: return nil
        }
    }

    static func format(of channel: OpaquePointer) -> IIOScanFormat {
        let f = iio_channel_get_data_format(channel)!.pointee
        return IIOScanFormat(
            storageBits: Int(f.length), bits: Int(f.bits), shift: Int(f.shift),
            isSigned: f.is_signed, isBigEndian: f.is_be, repeatCount: Int(max(1, f.`repeat`)))
    }

    static func attribute(_ channel: OpaquePointer, _ name: String) -> Double? {
        guard iio_channel_find_attr(channel, name) != nil else { return nil }
        var value = 0.0
        return iio_channel_attr_read_double(channel, name, &value) == 0 ? value : nil
    }

    static func deviceAttribute(_ device: OpaquePointer, _ name: String) -> String? {
        guard iio_device_find_attr(device, name) != nil else { return nil }
        var buffer = [CChar](repeating: 0, count: 128)
        let n = iio_device_attr_read(device, name, &buffer, buffer.count)
        guard n > 0 else { return nil }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }.trimmingCharactersInSet()
    }
}

/// Which device(s) to read: the accelerometer's, and the gyro's when it is another one.
struct IIODevicePlan {
    var accel: IIODeviceLayout
    var gyro: IIODeviceLayout?

    var layouts: [IIODeviceLayout] { [accel] + (gyro.map { [$0] } ?? []) }

    /// Picks devices in the context, or says why none fits.
    static func choose(context: OpaquePointer, configuration: IIOConfiguration) -> IIOPlanChoice {
        let all = (0..<iio_context_get_devices_count(context)).compactMap { i in
            iio_context_get_device(context, i).map(IIODeviceLayout.init(device:))
        }
        func named(_ name: String) -> IIODeviceLayout? { all.first { $0.id == name || $0.name == name } }
        let accel: IIODeviceLayout
        if let wanted = configuration.deviceName {
            guard let device = named(wanted) else { return .failed("no IIO device named \(wanted)", all) }
            accel = device
        } else {
            guard
                let device = all.first(where: { $0.hasAccel && $0.hasGyro }) ?? all.first(where: \.hasAccel)
                    ?? all.first(where: { !$0.unreadableAxes.isEmpty })
            else {
                return .failed("no IIO device with accel_x/y/z scan elements", all)
            }
            accel = device
        }
        if !accel.unreadableAxes.isEmpty || !accel.hasAccel {
            let reason = accel.unreadableAxes.first?.logLine ?? "no accel_x/y/z scan elements"
            return .failed("device \(accel.id) (\(accel.name)): \(reason)", all)
        }
        var gyro: IIODeviceLayout?
        if !accel.hasGyro {
            if let wanted = configuration.gyroDeviceName {
                gyro = named(wanted)
            } else {
                gyro = all.first { $0.id != accel.id && $0.hasGyro && $0.unreadableAxes.isEmpty }
            }
        }
        return .chosen(IIODevicePlan(accel: accel, gyro: gyro), all)
    }
}

/// The outcome of device discovery; both cases carry every device seen, for diagnose.
enum IIOPlanChoice {
    case chosen(IIODevicePlan, [IIODeviceLayout])
    case failed(String, [IIODeviceLayout])
}
