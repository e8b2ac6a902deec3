import BikePathCore
import Foundation
import GRDB

/// This device's detector calibration as `calibration show` reports it.
public struct CalibrationReport: Sendable, Equatable, Codable {
    /// The sensitivity `run` and `replay --db` apply.
    public var scales: [String: Double]
    /// Answers stored, and those the fit uses (the most recent `SensitivityCalibration.window`).
    public var answers: Int
    public var answersUsed: Int
    public var kept: Int
    public var dropped: Int
    public var isFactory: Bool
}

/// The rider's answers about detected candidates, and the sensitivity fitted from them
/// (docs/chain.md "Calibration"). Answers are taken when a draft is confirmed: each asked
/// candidate the rider kept (perhaps with another kind) or dropped. A rejected draft says
/// nothing about its candidates (a rider rejects a trip to keep it private, or because
/// it was not a ride), and held-back candidates were never asked about.
enum Calibration {
    /// Stores the answers of a draft being confirmed and refits the sensitivity.
    static func recordAnswers(_ db: Database, draftID: String) throws {
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO candidate_answers (draft_id, event_id, kind, strength, kept)
                SELECT o.draft_id, e.id, e.obstacle_kind, e.strength, 1 - o.dropped
                FROM draft_obstacles o JOIN events e ON e.id = o.event_id
                WHERE o.draft_id = ? AND o.origin = 'detected' AND o.held_back = 0 AND e.strength IS NOT NULL
                ORDER BY o.time_ns
                """, arguments: [draftID])
        try refit(db)
    }

    static func answers(_ db: Database) throws -> [CandidateAnswer] {
        try Row.fetchAll(db, sql: "SELECT kind, strength, kept FROM candidate_answers ORDER BY seq").compactMap { r in
            ObstacleKind(rawValue: r["kind"]).map { CandidateAnswer(kind: $0, strength: r["strength"], confirmed: r["kept"]) }
        }
    }

    static func refit(_ db: Database) throws {
        let sensitivity = SensitivityCalibration.calibrate(try answers(db))
        try db.execute(sql: "DELETE FROM calibration")
        for (kind, scale) in sensitivity.scales where scale != 1 {
            try db.execute(sql: "INSERT INTO calibration (kind, scale) VALUES (?, ?)", arguments: [kind.rawValue, scale])
        }
    }

    static func sensitivity(_ db: Database) throws -> DetectorSensitivity {
        var scales: [ObstacleKind: Double] = [:]
        for r in try Row.fetchAll(db, sql: "SELECT kind, scale FROM calibration") {
            if let kind = ObstacleKind(rawValue: r["kind"]) { scales[kind] = r["scale"] }
        }
        return DetectorSensitivity(scales: scales)
    }
}

extension Store {
    /// The sensitivity fitted from the rider's answers (factory when none).
    public func detectorSensitivity() throws -> DetectorSensitivity {
        try pool.read { db in try Calibration.sensitivity(db) }
    }

    /// The calibration as `calibration show` prints it: the scale per kind and the answers
    /// behind it.
    /// - Throws: a GRDB `DatabaseError` when the store cannot be read.
    public func calibrationReport() throws -> CalibrationReport {
        try pool.read { db in
            let answers = try Calibration.answers(db)
            let sensitivity = try Calibration.sensitivity(db)
            return CalibrationReport(
                scales: Dictionary(uniqueKeysWithValues: ObstacleKind.allCases.map { ($0.rawValue, sensitivity.scale(for: $0)) }),
                answers: answers.count, answersUsed: min(answers.count, SensitivityCalibration.window),
                kept: answers.filter(\.confirmed).count, dropped: answers.filter { !$0.confirmed }.count,
                isFactory: sensitivity.isFactory)
        }
    }

    /// Forgets every answer and returns to the factory sensitivity.
    public func resetCalibration() throws {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM candidate_answers; DELETE FROM calibration")
        }
    }
}
