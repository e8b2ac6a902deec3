/// A three-axis reading in the sensor's own frame (see the recording header for how
/// that frame sits on the bike).
public struct Vector3: Sendable, Hashable, Codable {
    public var x: Float
    public var y: Float
    public var z: Float
    /// Creates a vector from its components.
    public init(x: Float, y: Float, z: Float) {
        self.x = x
        self.y = y
        self.z = z
    }
    public static let zero = Vector3(x: 0, y: 0, z: 0)
}

/// One accelerometer (m/s², gravity included, as IIO reports it) and optional gyro
/// (rad/s) reading, taken at one instant of the shared monotonic clock.
public struct IMUSample: Sendable, Hashable, Codable {
    public var time: SampleTime
    public var accel: Vector3
    /// nil on a device without a gyro.
    public var gyro: Vector3?

    /// Creates a sample: acceleration in m/s² (gravity included), rotation rate in rad/s.
    public init(time: SampleTime, accel: Vector3, gyro: Vector3? = nil) {
        self.time = time
        self.accel = accel
        self.gyro = gyro
    }
}
