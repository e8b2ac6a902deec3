import Foundation

/// A path a rider enters by naming the streets they rode (`PUT /v1/manual-paths/{id}`,
/// docs/api.yaml; BBP R3–R4): the names in riding order, where it starts and ends, and the
/// status the rider gives it, in the vocabulary of a ride's stretches
/// (`RoadSegmentUpload.statuses`). The id is the device's, in the request's path.
public struct ManualPathUpload: Sendable, Codable, Equatable {
    /// The longest name taken, in characters: a street's name is tens of them, and each name
    /// costs the hub a fuzzy match against every street near the ends.
    public static let maxNameLength = 200
    /// Names a body may carry: the hub makes paths of 1–20 streets (`ManualPath.streetCount`)
    /// and answers a few more with that limit (422); beyond this many the body is invalid (400).
    public static let maxNames = 100
    /// Streets one path may name: a ride across a city names a dozen; 20 bounds the hub's
    /// search (a state per junction and street named). The hub's `ManualPath.streetCount` and
    /// the device's check before it queues a path (`problemsBeforeSending`).
    public static let streetCount = 1...20

    /// The sentence for a path of `count` names outside `streetCount`: the hub's 422
    /// `street-count` and the device's refusal say the same.
    public static func streetCountProblem(_ count: Int) -> String {
        "a path names \(streetCount.lowerBound)–\(streetCount.upperBound) streets, not \(count)"
    }

    public var streets: [String]
    public var start: WirePosition
    public var end: WirePosition
    public var status: String
    enum CodingKeys: String, CodingKey { case streets, start, end, status }

    /// Creates a manual path from its fields.
    public init(streets: [String], start: WirePosition, end: WirePosition, status: String) {
        (self.streets, self.start, self.end, self.status) = (streets, start, end, status)
    }
}

extension Validation {
    /// The field problems of a manual path, each as "field: why" (at most 20); empty when it
    /// is valid. Whether the streets exist and meet is the hub's to say (422), not a field's.
    public static func problems(_ path: ManualPathUpload) -> [String] {
        var p = Problems()
        if path.streets.count > ManualPathUpload.maxNames { p.add("streets", "at most \(ManualPathUpload.maxNames) names") }
        for (i, name) in path.streets.prefix(ManualPathUpload.maxNames).enumerated() {
            // Characters as JSON Schema counts them (docs/api.yaml's maxLength): code points.
            if name.isEmpty || name.unicodeScalars.count > ManualPathUpload.maxNameLength {
                p.add("streets[\(i)]", "must be a street's name, 1-\(ManualPathUpload.maxNameLength) characters")
            }
        }
        position(path.start, &p, "start")
        position(path.end, &p, "end")
        if !RoadSegmentUpload.statuses.contains(path.status) {
            p.add("status", "must be one of \(RoadSegmentUpload.statuses.sorted())")
        }
        return p.list
    }
}

extension Validation {
    /// What a device can check before it queues a path: the field problems (`problems`) and
    /// the street count the hub refuses with 422 `street-count`. Whether the streets exist and
    /// meet is the hub's to say: it holds the streets.
    public static func problemsBeforeSending(_ path: ManualPathUpload) -> [String] {
        var list = problems(path)
        if !ManualPathUpload.streetCount.contains(path.streets.count) {
            list.append("streets: \(ManualPathUpload.streetCountProblem(path.streets.count))")
        }
        return list
    }
}
