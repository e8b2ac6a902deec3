import BikePathAPI
import Foundation
import Logging

/// The migration that rewrites stored bodies in today's key names (issue 38): SQLite's
/// `v8-snake-case-bodies`, PostgreSQL's `v10-snake-case-bodies`. A hub stored each body as
/// canonical JSON, and compares a re-sent record by those bytes (`sha256`): bodies stored
/// in the pre-release camelCase names (`WireKeys.renamed`) would answer a device's re-send
/// (a lost acknowledgement) with 409. Re-encoded here, in the migration's transaction, they
/// are `duplicate` again, and nothing reads the old names from the database afterwards.
enum SnakeCaseBodies {
    /// Records read and rewritten per statement: bounded memory on a hub of any size.
    static let batch = 500

    /// What became of one stored body.
    enum Outcome: Equatable {
        /// Already today's canonical bytes.
        case unchanged
        case rewritten(body: Data, sha256: String)
        /// Does not decode as its kind: left as it is (never deleted), and counted.
        case undecodable
    }

    static func reencoded(kind: String, body: Data) -> Outcome {
        guard let kind = RecordKind(rawValue: kind), let decoded = try? RecordBody.decode(kind: kind, from: body),
            let canonical = try? decoded.canonicalJSON()
        else { return .undecodable }
        return canonical == body ? .unchanged : .rewritten(body: canonical, sha256: HubHash.sha256Hex(canonical))
    }

    /// The counts of a run, for its one log line.
    struct Tally: Equatable {
        var rewritten = 0, unchanged = 0, undecodable = 0

        mutating func add(_ outcome: Outcome) {
            switch outcome {
            case .unchanged: unchanged += 1
            case .rewritten: rewritten += 1
            case .undecodable: undecodable += 1
            }
        }

        /// Says nothing when nothing was to do (a new hub, or one without pre-release bodies).
        func log(_ migration: String, _ logger: Logger) {
            guard rewritten + undecodable > 0 else { return }
            let line: Logger.Message =
                "\(migration): \(rewritten) stored bodies rewritten in snake_case keys, \(unchanged) already were, \(undecodable) do not decode (left as they are)"
            if undecodable > 0 { logger.warning(line) } else { logger.notice(line) }
        }
    }
}
