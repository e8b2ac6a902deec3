import Foundation

/// One record's body, decoded by its kind.
public enum RecordBody: Sendable, Equatable {
    case sos(SOSUpload)
    case confirmation(ConfirmationUpload)
    case draft(DraftUpload)
    case trip(TripUpload)

    public var kind: RecordKind {
        switch self {
        case .sos: .sos
        case .confirmation: .confirmation
        case .draft: .draft
        case .trip: .trip
        }
    }

    /// The id the body itself carries (it must equal the key it is sent under).
    public var id: String {
        switch self {
        case .sos(let s): s.id
        case .confirmation(let c): c.draft.id
        case .draft(let d): d.id
        case .trip(let t): t.id
        }
    }

    /// Decodes a body sent under `kind` (a `PUT`'s document, or a batch item's `body`).
    /// Pre-release key names are read too (`WireKeys`).
    /// - Throws: `DecodingError` when the JSON is not a document of that kind.
    public static func decode(kind: RecordKind, from data: Data) throws(DecodingError) -> RecordBody {
        switch kind {
        case .sos: .sos(try WireKeys.decode(SOSUpload.self, from: data))
        case .confirmation: .confirmation(try WireKeys.decode(ConfirmationUpload.self, from: data))
        case .draft: .draft(try WireKeys.decode(DraftUpload.self, from: data))
        case .trip: .trip(try WireKeys.decode(TripUpload.self, from: data))
        }
    }

    /// Sorted-key JSON: the same record always gives the same bytes, so "identical"
    /// is a byte comparison on both sides. The bytes of `WireJSON.encode`, written by
    /// `CanonicalJSONEncoder` (several times faster; the hub encodes every record it stores).
    public func canonicalJSON() throws -> Data {
        switch self {
        case .sos(let v): Data(try CanonicalJSONEncoder.encode(v))
        case .confirmation(let v): Data(try CanonicalJSONEncoder.encode(v))
        case .draft(let v): Data(try CanonicalJSONEncoder.encode(v))
        case .trip(let v): Data(try CanonicalJSONEncoder.encode(v))
        }
    }
}

/// The JSON encoding both sides use on the wire, so equal values give equal bytes.
public enum WireJSON {
    /// Sorted keys, and `-0.0` written as `0` (equal numbers, equal bytes).
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        JSONShape.canonicalZeros(try JSONText.data(value))
    }
}

/// `POST /v1/batch`: many records in one request. Each `body` is the same JSON
/// document the single-record `PUT` takes.
public struct BatchRequest: Sendable, Codable {
    /// One record of a batch: its kind, its id (the key it is stored under) and its body.
    public struct Item: Sendable, Codable {
        public var kind: RecordKind
        public var id: String
        public var body: RecordBody
        /// Creates an item; its `kind` is taken from `body`.
        public init(id: String, body: RecordBody) {
            self.kind = body.kind
            self.id = id
            self.body = body
        }

        public enum CodingKeys: String, CodingKey, CaseIterable { case kind, id, body }

        // The body is decoded by the item's kind.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            kind = try c.decode(RecordKind.self, forKey: .kind)
            id = try c.decode(String.self, forKey: .id)
            switch kind {
            case .sos: body = .sos(try c.decode(SOSUpload.self, forKey: .body))
            case .confirmation: body = .confirmation(try c.decode(ConfirmationUpload.self, forKey: .body))
            case .draft: body = .draft(try c.decode(DraftUpload.self, forKey: .body))
            case .trip: body = .trip(try c.decode(TripUpload.self, forKey: .body))
            }
        }

        /// Writes `kind`, `id` and the body as the document of that kind.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(kind, forKey: .kind)
            try c.encode(id, forKey: .id)
            switch body {
            case .sos(let v): try c.encode(v, forKey: .body)
            case .confirmation(let v): try c.encode(v, forKey: .body)
            case .draft(let v): try c.encode(v, forKey: .body)
            case .trip(let v): try c.encode(v, forKey: .body)
            }
        }
    }
    public static let maxItems = 1000
    public var records: [Item]
    /// Creates a batch of at most `maxItems` (1000) records.
    public init(records: [Item]) { self.records = records }

    public enum CodingKeys: String, CodingKey, CaseIterable { case records }
    /// The names of the batch's own fields around its records' bodies.
    public static let envelopeNames = Set(CodingKeys.allCases.map(\.stringValue) + Item.CodingKeys.allCases.map(\.stringValue))
}

/// The outcome of one record, in a batch answer or as a single `PUT`'s body.
public struct RecordResult: Sendable, Codable, Equatable {
    /// What the hub did with the record.
    public enum Outcome: String, Sendable, Codable {
        /// Stored now (HTTP 201 alone).
        case created
        /// Already held, byte-identical: success (HTTP 200 alone).
        case duplicate
        /// Already held with a different body: nothing changed (HTTP 409 alone).
        case conflict
        /// A field failed validation (HTTP 400 alone).
        case invalid
    }
    public var kind: RecordKind
    public var id: String
    public var status: Int
    public var outcome: Outcome
    /// Why, for `conflict` and `invalid`.
    public var error: String?
    /// For `conflict`: SHA-256 (hex) of the body the hub holds and of the one received.
    public var storedSha256: String?
    public var receivedSha256: String?
    /// Names of the body's fields the hub does not know and did not store (a device newer
    /// than the hub; a typo), in name order; absent when it stored every field.
    public var ignored: [String]?
    enum CodingKeys: String, CodingKey {
        case kind, id, status, outcome, error, storedSha256 = "stored_sha256", receivedSha256 = "received_sha256", ignored
    }
    /// Creates a result; `status` is the HTTP status the record alone would have had.
    public init(
        kind: RecordKind, id: String, status: Int, outcome: Outcome, error: String? = nil,
        storedSha256: String? = nil, receivedSha256: String? = nil
    ) {
        self.kind = kind
        self.id = id
        self.status = status
        self.outcome = outcome
        self.error = error
        self.storedSha256 = storedSha256
        self.receivedSha256 = receivedSha256
    }
}

extension RecordResult {
    /// Whether its status is the one its outcome stands for (201 created, 200 duplicate,
    /// 409 conflict, 400 invalid). An answer that contradicts itself is not the hub's word:
    /// the client quarantines nothing on it.
    public var isCoherent: Bool {
        switch outcome {
        case .created: status == 201
        case .duplicate: status == 200
        case .conflict: status == 409
        case .invalid: status == 400
        }
    }
}

/// The answer to `POST /v1/batch`: one result per record.
public struct BatchResponse: Sendable, Codable {
    public var results: [RecordResult]
    /// Names of fields in the batch's records the hub does not know and did not store, in name
    /// order; absent when it stored every field it was sent (as `RecordResult.ignored`).
    public var ignored: [String]?
    /// Creates the answer from its results.
    public init(results: [RecordResult], ignored: [String]? = nil) { (self.results, self.ignored) = (results, ignored) }
}

/// The body of every error answer that is not about one record (401, 400 for a
/// malformed request, 413, 415, 429, 431, 500, 503).
public struct ErrorBody: Sendable, Codable, Equatable {
    public var error: String
    public var message: String
    /// Creates an error body: a short machine-readable code and a sentence for people.
    public init(error: String, message: String) {
        self.error = error
        self.message = message
    }
}

extension ErrorBody {
    /// The codes with which the hub refuses a request body as such (docs/api.yaml, `Error`).
    /// Only an answer that carries one of them, in this shape, may make the client split a
    /// batch or quarantine a record: a proxy, captive portal or WAF answers 400/403/413 too.
    public static let bodyRefusalCodes: Set<String> = [
        "invalid-json", "invalid-batch", "bad-gzip", "too-large", "too-many-values", "too-many-records", "unsupported-encoding",
    ]
    /// The codes that cannot be about a body this client built and sent whole (its JSON,
    /// gzip and encoding are its own): said of one, they mean the body was mangled on the
    /// way or the answer is not the hub's, and nothing is quarantined on them.
    public static let transitRefusalCodes: Set<String> = ["invalid-json", "bad-gzip", "unsupported-encoding"]
    /// Request bodies the hub takes, on the wire and inflated (docs/api.yaml): 32 MiB.
    public static let maxBodyBytes = 32 * 1024 * 1024
    /// The codes of the hub's 401: the device token itself is refused.
    public static let tokenRefusalCodes: Set<String> = ["missing-token", "bad-token", "token-revoked"]
}
