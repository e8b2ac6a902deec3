import BikePathDaemon
import BikePathSensors
import Foundation

/// `bikepathd diagnose`: the sensors, then the store and its sync outbox.
public struct DiagnosisReport: Encodable, Sendable {
    public var sensors: SensorDiagnosis
    public var store: StoreDiagnosisReport?
    /// Sensors that must be present and without errors (`--require`).
    private let required: Set<SensorKind>

    public init(sensors: SensorDiagnosis, store: StoreDiagnosisReport?, required: Set<SensorKind>) {
        self.sensors = sensors
        self.store = store
        self.required = required
    }

    private enum CodingKeys: String, CodingKey { case sensors, store }

    public var text: String { [sensors.text, store?.text].compactMap { $0 }.joined(separator: "\n") }

    /// docs/cli.md: 0 all well; 2 a required sensor missing or in error; 3 the
    /// sensors are fine but the store or sync has a problem.
    public var exitStatus: Int32 {
        let sensorError = sensors.problems.contains { $0.severity == .error && required.contains($0.sensor) }
        if !sensors.ok || sensorError { return 2 }
        if let store, !store.problems.isEmpty { return 3 }
        return 0
    }

    /// `--require gnss,imu` (or `none`).
    /// - Throws: `SensorListError` naming an unknown sensor.
    public static func requiredSensors(_ text: String) throws(SensorListError) -> [SensorKind] {
        if text.trimmingCharacters(in: .whitespaces) == "none" { return [] }
        return try text.split(separator: ",").map { name throws(SensorListError) -> SensorKind in
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard let kind = SensorKind(rawValue: trimmed) else { throw SensorListError(name: trimmed) }
            return kind
        }
    }
}

/// A sensor name in `--require` that is not one.
public struct SensorListError: CommandArgumentError, Equatable {
    public var name: String
    public var description: String { "unknown sensor '\(name)' in --require (known: gnss, imu, or none)" }
}
