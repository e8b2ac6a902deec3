import BikePathAPI
import Foundation
import Hummingbird

/// An answer that ends a request before anything is stored: an `ErrorBody` for
/// the request as a whole, or one record's `RecordResult`.
struct Refusal: Error, Sendable {
    let status: HTTPResponse.Status
    let json: Data
    /// The error code (or the record's outcome), for the rejections metric.
    let code: String

    init(_ status: HTTPResponse.Status, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        json = (try? WireJSON.encode(ErrorBody(error: code, message: message))) ?? Data("{}".utf8)
    }

    init(_ result: RecordResult) {
        status = HTTPResponse.Status(code: result.status)
        code = result.outcome.rawValue
        json = (try? WireJSON.encode(result)) ?? Data("{}".utf8)
    }

    init(_ problem: BodyProblem) {
        let a = problem.answer
        self.init(a.status, a.code, a.message)
    }
}

/// A record to store, with the body it was decoded to: the map indexes a confirmation
/// from it instead of decoding the stored JSON again.
struct ParsedRecord: Sendable {
    var record: StorableRecord
    var body: RecordBody
    /// Field names the body had that the hub does not store (`UploadParsing.ignoredFields`).
    var ignored: [String] = []
}

/// A batch after decoding: the items already judged (invalid) and the ones to store.
struct ParsedBatch: Sendable {
    var results: [RecordResult?]
    var toStore: [(index: Int, parsed: ParsedRecord)]
    /// Field names in its records that the hub does not store.
    var ignored: [String] = []
}

/// JSON text (already within `HubLimits`) to what the routes store. Pure and
/// CPU-bound: runs on `DecodeWorkers`.
enum UploadParsing {
    static func record(kind: RecordKind, key: String, json: Data) throws(Refusal) -> ParsedRecord {
        let parsed: RecordBody
        do {
            parsed = try RecordBody.decode(kind: kind, from: json)
        } catch {
            throw Refusal(
                RecordResult(
                    kind: kind, id: key, status: 400, outcome: .invalid,
                    error: "not a valid \(kind.rawValue) document: \(describe(error))"))
        }
        if let invalid = check(parsed, key: key) { throw Refusal(invalid) }
        let stored = try canonical(parsed)
        return ParsedRecord(record: (kind, key, stored), body: parsed, ignored: ignoredFields(json, storedAs: [stored]))
    }

    static func batch(json: Data) throws(Refusal) -> ParsedBatch {
        let batch: BatchRequest
        do {
            batch = try WireKeys.decode(BatchRequest.self, from: json)
        } catch {
            throw Refusal(.badRequest, "invalid-batch", "not a valid batch document: \(describe(error))")
        }
        guard batch.records.count <= BatchRequest.maxItems else {
            throw Refusal(.contentTooLarge, "too-many-records", "at most \(BatchRequest.maxItems) records per batch")
        }
        var parsed = ParsedBatch(results: Array(repeating: nil, count: batch.records.count), toStore: [])
        var seen = Set<String>()
        for (i, item) in batch.records.enumerated() {
            if let invalid = check(item.body, key: item.id) {
                parsed.results[i] = invalid
            } else if !seen.insert("\(item.kind.rawValue)/\(item.id)").inserted {
                parsed.results[i] = RecordResult(
                    kind: item.kind, id: item.id, status: 400, outcome: .invalid, error: "the same record twice in one batch")
            } else {
                parsed.toStore.append((i, ParsedRecord(record: (item.kind, item.id, try canonical(item.body)), body: item.body)))
            }
        }
        // Names no stored record holds: unknown fields, and those of records refused whole.
        parsed.ignored = ignoredFields(json, storedAs: parsed.toStore.map(\.parsed.record.canonical), envelope: BatchRequest.envelopeNames)
        return parsed
    }

    static func livePosition(json: Data) throws(Refusal) -> Data {
        guard let live = try? WireKeys.decode(LivePositionUpload.self, from: json) else {
            throw Refusal(.badRequest, "invalid-json", "the body is not a live position document")
        }
        let problems = Validation.problems(live)
        guard problems.isEmpty else { throw Refusal(.badRequest, "invalid", problems.joined(separator: "; ")) }
        do { return try WireJSON.encode(live) } catch { throw Refusal(.internalServerError, "encode", "\(error)") }
    }

    /// The names of fields in `json` that are in none of the documents the hub stores from it
    /// (`stored`, canonical: only the fields the hub knows) nor the envelope around them:
    /// fields it does not know (or of a batch's records it refused), which are not stored. An upload is not refused for them (a
    /// device newer than its hub sends fields the hub does not know yet), but the answer says
    /// which were left out (`ignored`), so that neither a typo nor a new field is lost unsaid.
    /// Names, not paths: a name the hub stores somewhere in the document is not listed.
    static func ignoredFields(_ json: Data, storedAs stored: [Data], envelope: Set<String> = []) -> [String] {
        var known = envelope
        for document in stored { known.formUnion(JSONShape.keyNames(document)) }
        // A pre-release name is stored under today's (`WireKeys`): not ignored.
        return Set(JSONShape.keyNames(json).map { WireKeys.renamed[$0] ?? $0 }).subtracting(known).sorted()
    }

    private static func canonical(_ body: RecordBody) throws(Refusal) -> Data {
        do { return try body.canonicalJSON() } catch { throw Refusal(.internalServerError, "encode", "\(error)") }
    }

    /// Validation problems as an `invalid` result, or nil when the record is sound.
    static func check(_ body: RecordBody, key: String) -> RecordResult? {
        var problems = Validation.problems(body)
        // The map's budget only for a record otherwise sound: its measures assume valid positions.
        if problems.isEmpty {
            switch body {
            case .draft(let d): problems = RideBudget.problems(d, prefix: "")
            case .confirmation(let c): problems = RideBudget.problems(c.draft, prefix: "draft.")
            case .sos, .trip: break
            }
        }
        if !Validation.isValidID(key) { problems.insert("id: the key must be 1-64 characters of A-Z a-z 0-9 - _", at: 0) }
        if body.id != key { problems.insert("id: the body's id \(body.id) differs from the key \(key)", at: 0) }
        guard !problems.isEmpty else { return nil }
        return RecordResult(kind: body.kind, id: key, status: 400, outcome: .invalid, error: problems.joined(separator: "; "))
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let c): "missing field \((c.codingPath + [key]).map(\.stringValue).joined(separator: "."))"
        case DecodingError.typeMismatch(_, let c): "wrong type at \(c.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.valueNotFound(_, let c):
            "null at \(c.codingPath.map(\.stringValue).joined(separator: ".")): leave an optional field out; a required one needs a value"
        case DecodingError.dataCorrupted(let c):
            "malformed JSON at \(c.codingPath.map(\.stringValue).joined(separator: ".")): \(c.debugDescription)"
        default: "\(error)"
        }
    }
}
