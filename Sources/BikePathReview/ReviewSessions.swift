import BikePathStore

/// A paired phone: its session cookie and the CSRF token its forms carry.
public struct ReviewSession: Sendable, Equatable {
    public let token: String
    public let csrf: String
}

/// The paired phones, in memory: a restart of the server asks them to pair again.
/// At most `capacity` at once; pairing one more forgets the oldest.
public actor ReviewSessions {
    public static let cookieName = "bikepath_review"
    let capacity: Int
    private var sessions: [ReviewSession] = []

    public init(capacity: Int = 8) { self.capacity = capacity }

    /// A new session with two fresh 256-bit random tokens.
    public func open() -> ReviewSession {
        let session = ReviewSession(token: Self.randomToken(), csrf: Self.randomToken())
        sessions.append(session)
        if sessions.count > capacity { sessions.removeFirst(sessions.count - capacity) }
        return session
    }

    /// The session a cookie names, if any.
    public func session(token: String?) -> ReviewSession? {
        guard let token, !token.isEmpty else { return nil }
        return sessions.first { ConstantTime.equal(token, $0.token) }
    }

    /// 256 bits from the system's generator: on Linux the standard library reads them with
    /// `getrandom(2)`, the kernel's cryptographically secure source.
    static func randomToken() -> String {
        var system = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &system) }.hexString
    }

    /// Whether a form's token is this session's.
    public nonisolated static func csrfMatches(_ session: ReviewSession, _ token: String?) -> Bool {
        guard let token else { return false }
        return ConstantTime.equal(token, session.csrf)
    }
}
