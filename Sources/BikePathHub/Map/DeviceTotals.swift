import BikePathAPI
import Foundation

/// A device's own totals over its uploaded trips (`GET /v1/me/totals`, the device's token only).
public struct DeviceTotals: Sendable, Equatable, Codable {
    public var trips: Int
    public var distanceM: Double
    public var co2AvoidedG: Double
    /// Distance milestones reached, in km (`milestones_km`: those of `DeviceTotals.steps`).
    public var milestonesKm: [Int]
    enum CodingKeys: String, CodingKey {
        case trips, distanceM = "distance_m", co2AvoidedG = "co2_avoided_g", milestonesKm = "milestones_km"
    }

    /// The milestones a rider can reach, in km (Green Journey's style of goals).
    public static let steps = [10, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000]

    public init(trips: [TripUpload]) {
        self.trips = trips.count
        let distance = trips.map(\.statistics.distanceM).reduce(0, +)
        distanceM = distance
        co2AvoidedG = trips.map(\.statistics.co2AvoidedG).reduce(0, +)
        milestonesKm = Self.steps.filter { Double($0) * 1000 <= distance }
    }
}
