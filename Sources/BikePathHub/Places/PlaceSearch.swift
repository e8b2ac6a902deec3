import BikePathCore
import Foundation

/// How `GET /v1/places` finds places by name (docs/hub.md, "Places by name"). The database
/// finds candidates, names that hold one of the query's `windows` (FTS5's trigram index on
/// SQLite, pg_trgm's GIN index on PostgreSQL), and keeps `maxCandidates` of them in one
/// order both can compute: most windows held, then the shortest name, then the OSM id. This
/// rule ranks them, so both stores answer the same places in the same order.
public struct PlaceSearch: Sendable, Equatable {
    /// Characters (code points) a query may have: 1–2 find nothing a trigram index can look up, and a
    /// name is rarely past 60 (100 leaves room for "street, district").
    public static let queryLength = 3...100
    /// Answers a request may ask for, and how many it gets when it names none.
    public static let limits = (default: 10, range: 1...50)
    /// Candidates read from the database: "street" or "road" is in 646 of central London's
    /// 2,524 named places; the 200 holding most of the query's windows hold the good matches.
    public static let maxCandidates = 200
    /// A fuzzy match scores at most this, below a name that starts a word with the query.
    static let fuzzyCeiling = 0.7
    /// Below this a name is not an answer: "goswell rd" scores 0.50 against "Goswell Road",
    /// 0.40 against "Goswell Terrace"; unrelated names sharing one window stay under 0.2.
    static let minMatch = 0.3
    /// The most a distance takes off a match, reached far away; half of it at `halfDistanceM`.
    static let maxDistancePenalty = 0.2
    static let halfDistanceM = 2_000.0

    /// A place found, with how far it lies from `near` when one was given.
    public struct Found: Sendable, Equatable {
        public var place: Place
        public var distanceMeters: Double?
        public var score: Double
    }

    /// The query as compared: case and accents folded, words split on anything not a letter or digit.
    public let words: [String]
    private let queryTrigrams: Set<UInt64>

    public init(query: String) {
        words = Self.words(query)
        queryTrigrams = Self.trigrams(words)
    }

    /// The 3-character windows of the query's words: a candidate holds at least one.
    public var windows: [String] {
        var out = Set<String>()
        for word in words {
            let chars = Array(word)
            guard chars.count >= 3 else { continue }
            for i in 0...(chars.count - 3) { out.insert(String(chars[i..<i + 3])) }
        }
        return out.sorted()
    }

    /// The query's words joined by one space, as a database's similarity order reads it.
    public var normalized: String { words.joined(separator: " ") }

    /// The best `limit` of `candidates`, best first: by `score`, then name, then OSM id.
    public func rank(_ candidates: [Place], near: Coordinate?, limit: Int) -> [Found] {
        let found: [Found] = candidates.compactMap { place in
            let match = match(place.name)
            guard match >= Self.minMatch else { return nil }
            let distance = near.map { Geodesic.distance($0, place.position) }
            let penalty = distance.map { Self.maxDistancePenalty * $0 / ($0 + Self.halfDistanceM) } ?? 0
            return Found(place: place, distanceMeters: distance, score: match - penalty)
        }
        return Array(
            found.sorted {
                ($0.score, $1.place.name, $1.place.osmID) > ($1.score, $0.place.name, $0.place.osmID)
            }.prefix(limit))
    }

    /// How well `name` matches the query, 0–1: the name itself 1, a name starting with the
    /// query 0.9, a word of the name starting with it 0.8, else trigram similarity scaled
    /// to `fuzzyCeiling` (typos: "Goswel Road" 0.60 for "Goswell Road").
    func match(_ name: String) -> Double {
        let name = Self.words(name), query = normalized, joined = name.joined(separator: " ")
        if joined == query { return 1 }
        if joined.hasPrefix(query) { return 0.9 }
        if (" " + joined).contains(" " + query) { return 0.8 }
        let q = queryTrigrams, n = Self.trigrams(name)
        guard !q.isEmpty else { return 0 }
        let shared = Double(q.intersection(n).count)
        // Jaccard as pg_trgm's similarity(), and how much of the query the name holds:
        // "goswell rd" shares 9 of its 11 trigrams with "Goswell Road" (0.82) but the name
        // has 4 of its own (0.60).
        let similarity = shared / Double(q.union(n).count), coverage = shared / Double(q.count)
        return Self.fuzzyCeiling * (similarity + coverage) / 2
    }

    static func words(_ text: String) -> [String] {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).lowercased()
            .split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }

    /// Each word's trigrams padded as pg_trgm pads them (two spaces before, one after), so
    /// a word's start and end count; each as its three code points in one number (21 bits
    /// each), not a String: ranking 200 candidates made 3,000 small strings.
    static func trigrams(_ words: [String]) -> Set<UInt64> {
        var out = Set<UInt64>()
        for word in words {
            var a: UInt64 = 32, b: UInt64 = 32
            for c in word.unicodeScalars.map({ UInt64($0.value) }) + [32] {
                out.insert(a << 42 | b << 21 | c)
                (a, b) = (b, c)
            }
        }
        return out
    }
}
