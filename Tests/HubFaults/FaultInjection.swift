import BikePathAPI
import BikePathCore
import BikePathHub
import Foundation
import Hummingbird
import Logging
import Synchronization

/// Injected failures for the sync client's tests, as a middleware on the hub's record
/// requests (`PUT` and `POST`); the shipped hub has no such hook.
struct HubFaults: Sendable, CustomStringConvertible {
    /// Share of requests answered 500 before anything is read or stored.
    var failRatio = 0.0
    /// Share of requests answered 503 with `Retry-After: 1`.
    var busyRatio = 0.0
    /// Share of requests delayed by `delayMilliseconds` before they are processed
    /// (the record is still stored after the delay, even if the client gave up).
    var delayRatio = 0.0
    var delayMilliseconds = 0
    /// Share of record requests that are committed and then have their connection
    /// closed without an answer.
    var dropAfterCommitRatio = 0.0
    var seed: UInt64 = 1

    var description: String {
        "fail \(failRatio), busy \(busyRatio), delay \(delayRatio) × \(delayMilliseconds) ms, drop after commit \(dropAfterCommitRatio), seed \(seed)"
    }
}

struct FaultMiddleware: RouterMiddleware {
    typealias Context = HubContext

    /// Seeded dice shared by every request handler.
    final class Dice: Sendable {
        private let state: Mutex<SplitMix64>
        init(seed: UInt64) { state = Mutex(SplitMix64(state: seed)) }

        /// True with probability `p`.
        func roll(_ p: Double) -> Bool {
            guard p > 0 else { return false }
            let x = state.withLock { $0.next() }
            return Double(x >> 11) / Double(1 << 53) < p
        }
    }

    let faults: HubFaults
    let dice: Dice
    let logger: Logger

    init(_ faults: HubFaults, logger: Logger) {
        self.faults = faults
        dice = Dice(seed: faults.seed)
        self.logger = logger
    }

    func handle(
        _ request: Request, context: HubContext,
        next: (Request, HubContext) async throws -> Response
    ) async throws -> Response {
        guard request.method == .put || request.method == .post else { return try await next(request, context) }
        if dice.roll(faults.failRatio) { return Self.answer(.internalServerError, "injected", "test-only fault: random 500") }
        if dice.roll(faults.busyRatio) {
            var response = Self.answer(.serviceUnavailable, "busy", "test-only fault: try again later")
            response.headers[.retryAfter] = "1"
            return response
        }
        if faults.delayMilliseconds > 0, dice.roll(faults.delayRatio) { try await Task.sleep(for: .milliseconds(faults.delayMilliseconds)) }
        let response = try await next(request, context)
        if response.status.code < 300, dice.roll(faults.dropAfterCommitRatio) {
            logger.notice("test-only fault: committed, now dropping the connection")
            try? await context.channel.close()
            throw ConnectionDropped()
        }
        return response
    }

    private static func answer(_ status: HTTPResponse.Status, _ code: String, _ message: String) -> Response {
        let body = (try? WireJSON.encode(ErrorBody(error: code, message: message))) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
