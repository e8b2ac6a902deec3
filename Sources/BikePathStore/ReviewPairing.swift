import Foundation
import GRDB

/// Secrets compared so that the time taken says nothing about how much matched.
public enum ConstantTime {
    /// Whether `given` equals `secret`, looking at every byte of `secret` whatever `given` is.
    public static func equal(_ given: String, _ secret: String) -> Bool {
        let a = Array(given.utf8), b = Array(secret.utf8)
        var difference = a.count == b.count ? 0 : 1
        for (i, byte) in b.enumerated() { difference |= Int(byte ^ (i < a.count ? a[i] : 0)) }
        return difference == 0
    }
}

/// The one-time code that pairs a phone with the review page (docs/review.md).
/// It lives in the store so that `bikepathd review pair` can issue it while the
/// daemon serves the page from another process.
public struct PairingCode: Sendable, Equatable {
    public var code: String
    public var expiresUTCNanoseconds: Int64
}

extension Store {
    /// Wrong guesses after which the code is void: 5 tries at a 6-digit code
    /// give a guesser a 1 in 200 000 chance before the rider must issue a new one.
    public static let pairingAttempts = 5
    /// How long a code may wait for its phone.
    public static let pairingLifetimeSeconds = 600.0

    /// Issues a new 6-digit code (replacing any earlier one), valid for `pairingLifetimeSeconds`.
    public func issuePairingCode(now: Date = Date()) throws -> PairingCode {
        var rng = SystemRandomNumberGenerator()
        let code = String(format: "%06d", Int.random(in: 0..<1_000_000, using: &rng))
        let expires = Int64((now.timeIntervalSince1970 + Self.pairingLifetimeSeconds) * 1e9)
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO meta (key, value) VALUES ('review_pairing_code', ?), ('review_pairing_expires_ns', ?),
                        ('review_pairing_failures', '0')
                    """, arguments: [code, String(expires)])
        }
        return PairingCode(code: code, expiresUTCNanoseconds: expires)
    }

    /// Spends the code: it pairs exactly one phone. A wrong code counts against
    /// `pairingAttempts`; the last wrong one voids the code.
    public func redeemPairingCode(_ attempt: String, now: Date = Date()) throws {
        // The refusal is returned, not thrown, inside the transaction: a throw would
        // roll back the counted failure and the voided code with it.
        let refusal: String? = try pool.write { db in
            func meta(_ key: String) throws -> String? {
                try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key])
            }
            func void() throws {
                try db.execute(
                    sql: "DELETE FROM meta WHERE key IN ('review_pairing_code', 'review_pairing_expires_ns', 'review_pairing_failures')")
            }
            guard let code = try meta("review_pairing_code"), let expires = Int64(try meta("review_pairing_expires_ns") ?? "") else {
                return "no pairing code is waiting; run `bikepathd review pair`"
            }
            guard Int64(now.timeIntervalSince1970 * 1e9) < expires else {
                try void()
                return "the code expired; run `bikepathd review pair` for a new one"
            }
            guard !ConstantTime.equal(attempt.trimmingCharacters(in: .whitespaces), code) else {
                try void()
                return nil
            }
            let failures = (Int(try meta("review_pairing_failures") ?? "") ?? 0) + 1
            if failures >= Self.pairingAttempts {
                try void()
                return "wrong code \(failures) times; the code is void — run `bikepathd review pair` again"
            }
            try db.execute(
                sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('review_pairing_failures', ?)", arguments: [String(failures)])
            let left = Self.pairingAttempts - failures
            return "wrong code (\(left) \(left == 1 ? "try" : "tries") left)"
        }
        if let refusal { throw StoreError.pairingRefused(refusal) }
    }
}
