import BikePathCore
import BikePathDaemon
import BikePathReview
import BikePathStore

/// What the rider typed after `drafts edit` (docs/cli.md), turned into the store's
/// edits in the documented order: kind changes, drops, additions, path status.
public struct DraftEditArguments: Sendable {
    /// `OBSTACLE=KIND`
    public var setKind: [String] = []
    /// `OBSTACLE`
    public var drop: [String] = []
    /// `KIND@SECONDS`, `KIND@HH:MM[:SS]` or `KIND@LAT,LON`
    public var add: [String] = []
    public var pathStatus: PathStatus?

    public init(setKind: [String] = [], drop: [String] = [], add: [String] = [], pathStatus: PathStatus? = nil) {
        self.setKind = setKind
        self.drop = drop
        self.add = add
        self.pathStatus = pathStatus
    }

    public var isEmpty: Bool { setKind.isEmpty && drop.isEmpty && add.isEmpty && pathStatus == nil }

    /// `drafts edit REFERENCE …`: the draft `reference` names (id, unique prefix or number) edited
    /// in `store`; its document afterwards and how many edits were applied.
    public func apply(to reference: String, in store: Store) async throws -> (draft: DraftDocument, edits: Int) {
        let id = try await store.resolveDraftID(reference)
        let draft = try await store.draft(id)
        let edits = try edits(for: draft) { try Store.resolveObstacleID($0, among: draft.obstacles) }
        for edit in edits { _ = try store.editDraft(id, edit) }
        return (try await store.draft(id), edits.count)
    }

    /// The edits for `draft`. `obstacle` turns what the rider typed for a candidate
    /// (id, unique prefix or `#N`) into its id, and may throw the store's error.
    /// Throws `DraftEditArgumentError` for text that is not an edit.
    public func edits(for draft: DraftDocument, obstacle: (String) throws -> String) throws -> [DraftEdit] {
        var edits: [DraftEdit] = []
        for item in setKind {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let kind = try? ObstacleKind.parse(parts[1]) else { throw DraftEditArgumentError.setKind(item) }
            edits.append(.setObstacleKind(obstacleID: try obstacle(parts[0]), kind))
        }
        edits += try drop.map { .dropObstacle(obstacleID: try obstacle($0)) }
        for item in add { edits.append(try Self.addition(item, draft)) }
        if let pathStatus { edits.append(.setPathStatus(pathStatus)) }
        return edits
    }

    private static func addition(_ item: String, _ draft: DraftDocument) throws(DraftEditArgumentError) -> DraftEdit {
        let parts = item.split(separator: "@", maxSplits: 1).map(String.init)
        guard parts.count == 2, let kind = try? ObstacleKind.parse(parts[0]) else { throw .add(item) }
        let place = parts[1].split(separator: ",").map { Double($0) }
        if place.count == 2, let lat = place[0], let lon = place[1], abs(lat) <= 90, abs(lon) <= 180 {
            return .addObstacle(kind, time: nil, coordinate: Coordinate(latitude: lat, longitude: lon))
        }
        if place.count == 1, let seconds = place[0], seconds.isFinite {
            return .addObstacle(kind, time: SampleTime(nanoseconds: draft.trip.startTimeNanoseconds) + seconds, coordinate: nil)
        }
        // A clock time, as `drafts show` prints it: what the rider read off a watch.
        if let start = draft.trip.startUTCNanoseconds, let utc = ReviewFormat.utcNanoseconds(clock: parts[1], onDayOf: start),
            let time = draft.sampleNanoseconds(atUTC: utc)
        {
            return .addObstacle(kind, time: SampleTime(nanoseconds: time), coordinate: nil)
        }
        throw .add(item)
    }
}

/// An edit the rider typed that is not one (the CLI shows it as a usage error).
public enum DraftEditArgumentError: CommandArgumentError, Equatable {
    case setKind(String)
    case add(String)

    public var description: String {
        switch self {
        case .setKind(let item):
            "--set-kind wants OBSTACLE=KIND with KIND one of \(ObstacleKind.words.joined(separator: ", ")) (or a prefix); got '\(item)'"
        case .add(let item):
            "--add wants KIND@SECONDS, KIND@HH:MM[:SS] or KIND@LAT,LON (degrees); got '\(item)'"
        }
    }
}
