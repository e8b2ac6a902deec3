import BikePathAPI
import BikePathStore
import Foundation

/// What the hub's answer to `PUT /v1/manual-paths/{id}` means for the path (docs/sync.md,
/// "Manual paths"): the one reading of it, pure, so each status is tested alone.
enum ManualPathVerdict: Equatable {
    /// 201 made, or 200 already held with the same body: the hub's length.
    case sent(lengthMeters: Double)
    /// The hub's own refusal of this path (422 it cannot be made, 400 a field, 409 another
    /// body under its id): never retried.
    case refused(code: String, message: String)
    /// 401 with a token code: syncing stops until the token is replaced.
    case unauthorized(String)
    /// Anything else (408, 429, 5xx, a proxy's or an older hub's answer): the path stays
    /// queued and the pass is retried with the engine's backoff.
    case retry(SyncFailure, retryAfterSeconds: Double?)

    /// The hub's answer, read: only its length (docs/api.yaml, `ManualPathAnswer`).
    private struct Receipt: Decodable {
        struct Properties: Decodable {
            var lengthMeters: Double
            enum CodingKeys: String, CodingKey { case lengthMeters = "length_m" }
        }
        var properties: Properties
    }

    init(_ answer: HubAnswer) {
        switch answer.status {
        case 200, 201:
            if let receipt = try? JSONDecoder().decode(Receipt.self, from: answer.body) {
                self = .sent(lengthMeters: receipt.properties.lengthMeters)
            } else {
                self = .retry(.notTheHub(status: answer.status, detail: "not a manual path answer"), retryAfterSeconds: nil)
            }
        case 401 where SyncEngine.hubError(answer, in: ErrorBody.tokenRefusalCodes) != nil:
            self = .unauthorized(SyncEngine.errorText(answer))
        case 408, 429, 500...599:
            self = .retry(
                .hubAnswered(status: answer.status, detail: SyncEngine.errorText(answer)),
                retryAfterSeconds: [429, 503].contains(answer.status) ? RetryAfter.seconds(answer.retryAfter) : nil)
        case 400, 409, 422:
            // The hub's error shape with a code that is about this body, not about its transit.
            if let e = try? JSONDecoder().decode(ErrorBody.self, from: answer.body), !ErrorBody.transitRefusalCodes.contains(e.error) {
                self = .refused(code: e.error, message: e.message)
            } else {
                self = .retry(.notTheHub(status: answer.status, detail: SyncEngine.errorText(answer)), retryAfterSeconds: nil)
            }
        default:
            // 404/405 here come after the batch endpoint answered: a hub older than manual paths.
            self = .retry(.notTheHub(status: answer.status, detail: SyncEngine.errorText(answer)), retryAfterSeconds: nil)
        }
    }
}

extension SyncEngine {
    /// Sends the queued manual paths one by one, oldest first, each as the same bytes on every
    /// try; stops at the first that must be retried (the rest wait with it for the backoff).
    func sendManualPaths() async throws -> BatchOutcome {
        var outcome = BatchOutcome()
        for path in try await store.queuedManualPaths() {
            let verdict: ManualPathVerdict
            do {
                verdict = ManualPathVerdict(try await client.putManualPath(try WireJSON.encode(path.path), id: path.id))
            } catch {
                verdict = .retry(.unreachable(Self.describe(error)), retryAfterSeconds: nil)
            }
            switch verdict {
            case .sent(let length):
                online = true
                try store.recordManualPathAttempt(path.id, .sent(lengthMeters: length), utcNanoseconds: wallClock())
                outcome.sent += 1
            case .refused(let code, let message):
                online = true
                try store.recordManualPathAttempt(path.id, .refused(code: code, message: message), utcNanoseconds: wallClock())
                outcome.quarantined += 1
            case .unauthorized(let detail):
                outcome.stop = unauthorized(detail)
                return outcome
            case .retry(let failure, let retryAfter):
                try store.recordManualPathAttempt(path.id, .failed(failure.description), utcNanoseconds: wallClock())
                outcome.stop = fail(failure, retryAfter: retryAfter)
                return outcome
            }
        }
        return outcome
    }
}
