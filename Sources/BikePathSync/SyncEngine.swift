import BikePathAPI
import BikePathCore
import BikePathStore
import Foundation

/// How sync sends: batch size and bytes, backoff, and the idle poll.
public struct SyncOptions: Sendable {
    /// Records per request: at least one, at most what the hub takes (`BatchRequest.maxItems`,
    /// 1,000); `sync run --batch-size` and the daemon are held to it by `setBatchSize`.
    public static let batchSizes = 1...BatchRequest.maxItems
    /// Records per request, within `batchSizes`.
    public private(set) var batchSize = 200
    /// Uncompressed JSON per request, about; a single larger record still goes alone.
    public var maxBatchBytes = 4 * 1024 * 1024
    public var backoff = Backoff()
    /// How often an idle client looks for new work when nobody signals it.
    public var idlePollSeconds = 60.0
    /// Creates the defaults above: 200 records or about 4 MiB a request, backoff 1 s to 300 s,
    /// a poll every 60 s.
    public init() {}

    /// - Throws: `SyncOptionsError.batchSize` when `size` is outside `batchSizes`.
    public static func check(batchSize size: Int) throws(SyncOptionsError) {
        guard batchSizes.contains(size) else { throw .batchSize(size) }
    }

    /// Sets `batchSize`.
    /// - Throws: `SyncOptionsError.batchSize` when `size` is outside `batchSizes`.
    public mutating func setBatchSize(_ size: Int) throws(SyncOptionsError) {
        try Self.check(batchSize: size)
        batchSize = size
    }
}

/// A sync setting out of its range.
public enum SyncOptionsError: Error, Equatable, CustomStringConvertible {
    /// Records per request outside `SyncOptions.batchSizes`.
    case batchSize(Int)

    public var description: String {
        switch self {
        case .batchSize(let size):
            "a batch of \(size) records: it must be \(SyncOptions.batchSizes.lowerBound) to \(SyncOptions.batchSizes.upperBound) (what the hub takes)"
        }
    }
}

/// What one pass over the outbox ended with.
public enum PassResult: Sendable, Equatable {
    /// Nothing left to send (what could be sent was sent or quarantined).
    case drained(sent: Int, quarantined: Int)
    /// The hub could not be reached or asked us to wait; try again later.
    case failed(SyncFailure, retryAfterSeconds: Double?)
    /// 401: syncing stopped until the token is fixed and the client restarted.
    case unauthorized(String)
    /// 404/405 for an endpoint: the hub URL is wrong (not a verdict on a record);
    /// syncing stopped until the configuration is fixed and the client restarted.
    case misconfigured(String)
}

extension PassResult: CustomStringConvertible {
    /// `drained; sent 3, quarantined 0`, `failed: …` or `stopped: …`: the words of
    /// `sync run`, the daemon's log, its status and `tail`.
    public var description: String {
        switch self {
        case .drained(let sent, let quarantined): "drained; sent \(sent), quarantined \(quarantined)"
        case .failed(let reason, _): "failed: \(reason)"
        case .unauthorized(let reason), .misconfigured(let reason): "stopped: \(reason)"
        }
    }
}

/// Why a pass failed (it is retried with backoff); `description` is the text
/// `sync status`, the log and `bikepathd tail` show.
public enum SyncFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The store could not be read or written (its error's text).
    case store(String)
    /// No answer from the hub: refused, DNS, TLS, timeout (the transport's words).
    case unreachable(String)
    /// A 200 whose body is not a batch answer.
    case unreadableAnswer
    /// Some records of the batch got a retryable answer (408, 429, 5xx).
    case recordsToRetry
    /// The hub answered with a retryable error status (408, 429, 5xx).
    case hubAnswered(status: Int, detail: String)
    /// Something answered that is not the hub's contract (a proxy, captive portal, WAF or
    /// a wrong URL's server): nothing is quarantined on its word; retried with backoff.
    case notTheHub(status: Int, detail: String)

    public var description: String {
        switch self {
        case .store(let error): "store error: \(error)"
        case .unreachable(let why): "hub unreachable: \(why)"
        case .unreadableAnswer: "the hub's batch answer could not be read"
        case .recordsToRetry: "some records must be retried"
        case .hubAnswered(let status, let detail): "hub answered \(status): \(detail)"
        case .notTheHub(let status, let detail):
            "the hub URL answered \(status), not in the hub's contract (a proxy, captive portal or wrong URL?): \(detail); nothing was quarantined, retrying"
        }
    }
}

/// Works the store's outbox against the hub (docs/sync.md):
/// SOS, then confirmations, then drafts, then trips, oldest first, in batches, then the
/// rider's named paths one by one (`sendManualPaths`);
/// done on the hub's own 2xx answer; quarantined (with its reason) only on the hub's
/// own refusal of that record (a `RecordResult` naming it, or a body refusal code of
/// `ErrorBody`); stopped on the hub's 401 (token) and on 404/405 (wrong hub URL:
/// nothing is quarantined for it); retried with backoff otherwise, including any
/// answer that is not in the hub's contract (proxies, captive portals, WAFs).
public actor SyncEngine {
    public let store: Store
    public let client: HubClient
    public let options: SyncOptions
    private let jitter: @Sendable () -> Double
    let wallClock: @Sendable () -> Int64
    private let wakeup = Wakeup()
    private var failuresInARow = 0

    /// "Online" means the last attempt reached the hub and got an answer it could act on.
    public internal(set) var online = false
    /// Set on 401 or 404/405; the engine does nothing more until restarted.
    public var stoppedReason: String? {
        switch stopped {
        case .unauthorized(let reason), .misconfigured(let reason): reason
        default: nil
        }
    }
    /// The pass that stopped the engine (401 or 404/405), if one did.
    public var stoppedResult: PassResult? { stopped }
    private var stopped: PassResult?
    public private(set) var lastError: String?

    /// Creates an engine sending the outbox of `store` through `client`; `jitter` (in [0, 1))
    /// and `wallClock` (UTC ns) are the caller's so tests are deterministic.
    public init(
        store: Store, client: HubClient, options: SyncOptions = SyncOptions(),
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        wallClock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1e9) }
    ) {
        self.store = store
        self.client = client
        self.options = options
        self.jitter = jitter
        self.wallClock = wallClock
    }

    /// The network changed (interface up, new Wi-Fi): forget the backoff and try now.
    public nonisolated func networkChanged() {
        wakeup.signal(resetBackoff: true)
    }

    /// New work was queued (an SOS, a confirmation): try now.
    public nonisolated func workAvailable() {
        wakeup.signal()
    }

    /// Runs until cancelled or stopped by a 401. `onPass` hears each pass's result
    /// and how long the engine will wait before the next one (unless woken).
    public func run(onPass: (@Sendable (PassResult, _ waitSeconds: Double) -> Void)? = nil) async {
        while !Task.isCancelled {
            let result = await syncOnce()
            let delay: Double
            switch result {
            case .unauthorized, .misconfigured:
                onPass?(result, 0)
                return
            case .drained:
                failuresInARow = 0
                delay = options.idlePollSeconds
            case .failed(_, let retryAfter):
                failuresInARow += 1
                delay = retryAfter ?? options.backoff.delay(afterFailures: failuresInARow, jitter: jitter())
            }
            onPass?(result, delay)
            if await wakeup.wait(seconds: delay) == .resetBackoff { failuresInARow = 0 }
        }
    }

    /// One pass: queue what may be queued, then send batches until the outbox is
    /// empty or an attempt fails.
    public func syncOnce() async -> PassResult {
        if let stopped { return stopped }
        var sent = 0, quarantined = 0
        do {
            while true {
                // Read the switches before every batch: turning a stream off stops it at once.
                let consent = try await store.effectiveConsent()
                let privacy = try await SyncSettings.privacy(store)
                let off = SyncStream.allCases.filter { !consent.allows($0) }.flatMap(SyncSettings.kinds(of:))
                try store.withholdOutbox(kinds: off)
                if consent.tripsAndDrafts { try await Queuer.queueNew(store, privacy: privacy) }

                let items = try await store.outboxPending(limit: options.batchSize).filter {
                    consent.allows(SyncSettings.stream(of: $0.kind))
                }
                if items.isEmpty {
                    // The rider's named paths go with trips and drafts, after them (docs/sync.md).
                    if consent.allows(.tripsAndDrafts) {
                        let paths = try await sendManualPaths()
                        sent += paths.sent
                        quarantined += paths.quarantined
                        if let stop = paths.stop { return stop }
                    }
                    return .drained(sent: sent, quarantined: quarantined)
                }
                let builder = UploadBuilder(privacy: privacy)
                var batch: [(OutboxItem, BatchRequest.Item)] = []
                var bytes = 0
                for item in items {
                    // Only the bytes the hash chain linked when the record was queued may leave.
                    if let problem = try await store.outboxIntegrityProblem(item) {
                        try quarantine(item, "refused before upload: \(problem)")
                        quarantined += 1
                        continue
                    }
                    do {
                        let sha = item.kind == .confirmation ? try await store.confirmedPayloadSHA256(draftID: item.recordID) : nil
                        let body = try builder.body(for: item, confirmedSha256: sha)
                        bytes += item.payload.utf8.count
                        if !batch.isEmpty && bytes > options.maxBatchBytes { break }
                        batch.append((item, BatchRequest.Item(id: item.recordID, body: body)))
                    } catch {
                        // A payload this build cannot read will never become sendable: say so once.
                        try quarantine(item, "cannot build the upload: \(error)")
                        quarantined += 1
                    }
                }
                if batch.isEmpty { continue }
                let outcome = try await sendBatch(batch)
                sent += outcome.sent
                quarantined += outcome.quarantined
                if let stop = outcome.stop { return stop }
            }
        } catch {
            return fail(.store("\(error)"), retryAfter: nil)
        }
    }

    struct BatchOutcome {
        var sent = 0
        var quarantined = 0
        var stop: PassResult?
    }

    private func sendBatch(_ batch: [(OutboxItem, BatchRequest.Item)]) async throws -> BatchOutcome {
        let answer: HubAnswer
        do {
            answer = try await client.postBatch(batch.map(\.1))
        } catch {
            return BatchOutcome(stop: fail(.unreachable(Self.describe(error)), retryAfter: nil))
        }
        switch answer.status {
        case 200:
            // The decoder's detail is of no use to the rider; the pass fails and is retried.
            guard let response = try? WireKeys.decode(BatchResponse.self, from: answer.body) else {
                return BatchOutcome(stop: fail(.unreadableAnswer, retryAfter: nil))
            }
            // A result whose status contradicts its outcome (409 with `created`) is not the
            // hub's word: nothing is quarantined on such an answer.
            if let odd = response.results.first(where: { !$0.isCoherent }) {
                return BatchOutcome(
                    stop: fail(
                        .notTheHub(
                            status: 200,
                            detail: "\(odd.kind.rawValue) \(odd.id) answered \(odd.status) with outcome \(odd.outcome.rawValue)"),
                        retryAfter: nil))
            }
            online = true
            if let ignored = response.ignored, !ignored.isEmpty {
                // Fields this device sent that the hub does not store (a hub older than the
                // device): not a failure, but said where `sync log` shows it.
                try? store.appendSyncLog(
                    outcome: "fields-ignored", detail: "the hub did not store the fields \(ignored.joined(separator: ", "))",
                    utcNanoseconds: wallClock())  // diagnostic, as the failures' lines
            }
            var outcome = BatchOutcome()
            var byKey: [String: RecordResult] = [:]
            for r in response.results { byKey["\(r.kind.rawValue)/\(r.id)"] = r }
            var retry = false
            for (item, wire) in batch {
                guard let r = byKey["\(wire.kind.rawValue)/\(wire.id)"] else { retry = true; continue }
                switch try settle(item, status: r.status, detail: r.detailText) {
                case .sent: outcome.sent += 1
                case .quarantined: outcome.quarantined += 1
                case .retry: retry = true
                case .unauthorized: return BatchOutcome(stop: unauthorized("401 on a record"))
                case .misconfigured: return BatchOutcome(stop: misconfigured(r.status, "on a record: \(r.detailText)"))
                }
            }
            if retry { outcome.stop = fail(.recordsToRetry, retryAfter: nil) }
            return outcome
        case 401 where Self.hubError(answer, in: ErrorBody.tokenRefusalCodes) != nil:
            return BatchOutcome(stop: unauthorized(Self.errorText(answer)))
        case 404, 405:
            return BatchOutcome(stop: misconfigured(answer.status, "for the batch endpoint: \(Self.errorText(answer))"))
        case 408, 429, 500...599:
            return BatchOutcome(
                stop: fail(
                    .hubAnswered(status: answer.status, detail: Self.errorText(answer)),
                    retryAfter: [429, 503].contains(answer.status) ? RetryAfter.seconds(answer.retryAfter) : nil))
        default:
            guard Self.hubError(answer, in: ErrorBody.bodyRefusalCodes) != nil else {
                return BatchOutcome(stop: fail(.notTheHub(status: answer.status, detail: Self.errorText(answer)), retryAfter: nil))
            }
            // The hub refused the batch as a whole (malformed, too large): send the
            // records one by one, so that only a bad record is quarantined.
            online = true
            var outcome = BatchOutcome()
            for (item, wire) in batch {
                let single: HubAnswer
                do {
                    single = try await client.put(wire.body, id: wire.id)
                } catch {
                    outcome.stop = fail(.unreachable(Self.describe(error)), retryAfter: nil)
                    return outcome
                }
                // The hub answers a record with its RecordResult, or refuses the body with
                // an ErrorBody code; anything else is not the hub speaking.
                let result = (try? WireKeys.decode(RecordResult.self, from: single.body)).flatMap {
                    $0.kind == wire.kind && $0.id == wire.id && $0.status == single.status && $0.isCoherent ? $0 : nil
                }
                var hubRefusal = Self.hubError(single, in: ErrorBody.bodyRefusalCodes.union(ErrorBody.tokenRefusalCodes))
                // Not about a body this client built whole: mangled on the way, or not the hub.
                if let code = hubRefusal?.error, ErrorBody.transitRefusalCodes.contains(code) { hubRefusal = nil }
                // "Too large" for a record within the hub's documented limit contradicts the contract.
                if hubRefusal?.error == "too-large", (try? wire.body.canonicalJSON().count).map({ $0 <= ErrorBody.maxBodyBytes }) ?? false {
                    hubRefusal = nil
                }
                guard result != nil || hubRefusal != nil || [404, 405, 408, 429].contains(single.status) || single.status >= 500 else {
                    outcome.stop = fail(.notTheHub(status: single.status, detail: Self.errorText(single)), retryAfter: nil)
                    return outcome
                }
                let detail = result?.detailText ?? Self.errorText(single)
                switch try settle(item, status: single.status, detail: detail) {
                case .sent: outcome.sent += 1
                case .quarantined: outcome.quarantined += 1
                case .unauthorized:
                    outcome.stop = unauthorized(detail)
                    return outcome
                case .misconfigured:
                    outcome.stop = misconfigured(single.status, "for \(wire.kind.rawValue) \(wire.id): \(detail)")
                    return outcome
                case .retry:
                    outcome.stop = fail(
                        .hubAnswered(status: single.status, detail: detail),
                        retryAfter: [429, 503].contains(single.status) ? RetryAfter.seconds(single.retryAfter) : nil)
                    return outcome
                }
            }
            return outcome
        }
    }

    private enum Settled { case sent, quarantined, retry, unauthorized, misconfigured }

    /// Applies one record's HTTP status to the outbox.
    private func settle(_ item: OutboxItem, status: Int, detail: String) throws -> Settled {
        switch status {
        case 200...299:
            try store.recordSyncAttempt(seq: item.seq, outcome: .sent, utcNanoseconds: wallClock())
            if item.kind == .confirmation {
                // The draft may already be marked synced (a resend after a lost answer); any
                // other failure is the store's and fails the pass (a `try?` would hide a full disk).
                do { try store.markDraftSynced(item.recordID) } catch StoreError.illegalTransition(_, from: .synced, to: _) {}
            }
            return .sent
        case 401:
            return .unauthorized
        case 404, 405:
            return .misconfigured
        case 408, 429, 500...599:
            try store.recordSyncAttempt(seq: item.seq, outcome: .failed("\(status): \(detail)"), utcNanoseconds: wallClock())
            return .retry
        default:
            try quarantine(item, "\(status): \(detail)")
            return .quarantined
        }
    }

    private func quarantine(_ item: OutboxItem, _ reason: String) throws {
        try store.recordSyncAttempt(seq: item.seq, outcome: .quarantined(reason), utcNanoseconds: wallClock())
    }

    func fail(_ failure: SyncFailure, retryAfter: Double?) -> PassResult {
        online = false
        lastError = failure.description
        // The log is diagnostic: failing to write it must not change the pass's result.
        try? store.appendSyncLog(outcome: "failed", detail: failure.description, utcNanoseconds: wallClock())
        return .failed(failure, retryAfterSeconds: retryAfter)
    }

    func unauthorized(_ detail: String) -> PassResult {
        stop(
            .unauthorized("the hub refused the device token (401: \(detail)); syncing stopped until the token is replaced"),
            logOutcome: "unauthorized")
    }

    /// The hub has no such endpoint: a wrong URL, not a bad record. Stop, quarantine nothing.
    private func misconfigured(_ status: Int, _ detail: String) -> PassResult {
        stop(
            .misconfigured(
                "the hub answered \(status) \(detail); check the hub URL (\(client.endpoint.baseURL)) — syncing stopped, nothing was quarantined"
            ),
            logOutcome: "misconfigured")
    }

    /// Stops the engine for good (until restarted) with `result`, and logs it.
    private func stop(_ result: PassResult, logOutcome: String) -> PassResult {
        online = false
        stopped = result
        lastError = stoppedReason
        try? store.appendSyncLog(outcome: logOutcome, detail: stoppedReason ?? "", utcNanoseconds: wallClock())  // diagnostic, as above
        return result
    }

    /// The hub's own error answer, when `answer` is one with a code of `codes`.
    static func hubError(_ answer: HubAnswer, in codes: Set<String>) -> ErrorBody? {
        guard let e = try? JSONDecoder().decode(ErrorBody.self, from: answer.body), codes.contains(e.error) else { return nil }
        return e
    }

    static func errorText(_ answer: HubAnswer) -> String {
        // Not the hub's error shape: the status alone (below).
        if let e = try? JSONDecoder().decode(ErrorBody.self, from: answer.body) { return "\(e.error): \(e.message)" }
        return String(decoding: answer.body.prefix(200), as: UTF8.self)
    }

    static func describe(_ error: any Error) -> String {
        String(describing: error).prefix(200).description
    }
}

extension RecordResult {
    var detailText: String {
        var s = outcome.rawValue
        if let error { s += ": \(error)" }
        if let stored = storedSha256, let received = receivedSha256 { s += " (hub holds sha256 \(stored), sent \(received))" }
        return s
    }
}
