import Hummingbird
import PostgresNIO
import Synchronization
import _ConnectionPoolModule

/// What a request answers when its store fails it (docs/hub.md, "When the database is
/// gone"): never an empty 500. A database that does not answer is a 503 `unavailable` with
/// `Retry-After` (a balancer or a device tries again; nothing was stored); anything else a
/// 500 `internal` that names the request id to find in the log, not the error's text (it
/// may hold SQL).
enum StoreFailure {
    static let retryAfterSeconds = 2

    /// The store did not answer within `StoreGuard.deadline`, or is known not to answer.
    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    /// Whether `error` says the database cannot be reached, rather than that a query failed.
    static func isUnavailable(_ error: any Error) -> Bool {
        if error is Unavailable { return true }
        if let pool = error as? ConnectionPoolError { return pool == .connectionCreationCircuitBreakerTripped || pool == .poolShutdown }
        guard let psql = error as? PSQLError else { return false }
        // The server's own refusals of the moment: 08xxx connection exceptions, 57P0x shutting
        // down or starting up.
        if psql.code == .server, let state = psql.serverInfo?[.sqlState] { return state.hasPrefix("08") || state.hasPrefix("57P") }
        return [.connectionError, .serverClosedConnection, .poolClosed, .clientClosedConnection, .queryCancelled].contains(psql.code)
    }

    /// The answer for a request that `error` ended.
    static func answer(_ error: any Error, requestID: String) -> Response {
        guard isUnavailable(error) else {
            return HubServer.answer(
                Refusal(.internalServerError, "internal", "the hub failed this request; its log has request \(requestID)"))
        }
        var response = HubServer.answer(
            Refusal(.serviceUnavailable, "unavailable", "the hub's database does not answer; try again in \(retryAfterSeconds) s"))
        response.headers[.retryAfter] = "\(retryAfterSeconds)"
        return response
    }
}

/// Bounds a request's store work in time, and answers at once while the store is known to be
/// gone: a PostgreSQL that stopped made the first requests wait for the pool's connection
/// attempts (66.7 s seen), and every request then waited its own deadline in turn.
final class StoreGuard: Sendable {
    /// How long a request's store work may take once its body is read.
    let deadline: Duration
    /// After a request found the store gone, how long others are answered 503 at once,
    /// without waiting on it; the first after that tries the store again.
    let downFor: Duration
    private let downUntil = Mutex<ContinuousClock.Instant?>(nil)

    init(deadline: Duration = .seconds(10), downFor: Duration = .seconds(2)) { (self.deadline, self.downFor) = (deadline, downFor) }

    /// `work`, or `StoreFailure.Unavailable` once `deadline` has passed or while the store is
    /// known to be gone. Cancelling a store call that waits for a connection ends it at once
    /// (`Readiness` relies on the same).
    func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        if let until = downUntil.withLock({ $0 }), ContinuousClock.now < until {
            throw StoreFailure.Unavailable(description: "the store did not answer a moment ago")
        }
        do {
            let deadline = deadline
            return try await withThrowingTaskGroup(of: T?.self) { group in
                group.addTask { try await work() }
                group.addTask {
                    try await Task.sleep(for: deadline)
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let value = first else {
                    throw StoreFailure.Unavailable(description: "no answer from the store within \(deadline)")
                }
                return value
            }
        } catch {
            if StoreFailure.isUnavailable(error) { downUntil.withLock { $0 = .now + downFor } }
            throw error
        }
    }
}
