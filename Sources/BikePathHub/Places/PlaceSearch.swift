import BikePathCore
import Foundation

/// How `GET /v1/places` finds places by name (docs/hub.md, "Places by name"). A name is
/// compared by its trigrams as pg_trgm makes them (each folded word padded with two spaces
/// before and one after). A fuzzy match scores at most `fuzzyCeiling` times the share of
/// the query's trigrams the name holds, so a name holding fewer than `minShared` of them
/// can never reach `minMatch`: the database finds exactly the names holding that many (the
/// `key` of each, FTS5's trigram index on SQLite, pg_trgm's GIN index on PostgreSQL, looked
/// up by the query's rarest trigrams, `probe`) and keeps `maxCandidates` of them in one order
/// both can compute: most trigrams held, then the shortest name, then the OSM id. This rule
/// ranks them, so both stores answer the same places in the same order.
public struct PlaceSearch: Sendable, Equatable {
    /// Characters (code points) a query may have: 1–2 find nothing a trigram index can look up, and a
    /// name is rarely past 60 (100 leaves room for "street, district").
    public static let queryLength = 3...100
    /// Answers a request may ask for, and how many it gets when it names none.
    public static let limits = (default: 10, range: 1...50)
    /// Candidates read from the database at most: "Wood Street" shares 7 of its 12 trigrams
    /// with every "… Street" (990 of bench/places.sh's 10,235 places, 21 of its 200 searches
    /// reach 200); the 200 holding most of the query's trigrams hold the good matches.
    public static let maxCandidates = 200
    /// A fuzzy match scores at most this, below a name that starts a word with the query.
    static let fuzzyCeiling = 0.7
    /// Below this a name is not an answer: "goswell rd" scores 0.50 against "Goswell Road",
    /// 0.40 against "Goswell Terrace"; a name sharing only a common word passes ("Fleet
    /// Street" scores 0.36 for "Wood Street") and ranks below every name sharing more.
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

    /// The query's trigrams as text (pads as spaces), sorted: what a place's `key` holds as
    /// substrings when its name has them.
    public var trigrams: [String] { queryTrigrams.map(Self.text).sorted() }

    /// The fewest of `trigrams` a name can hold and still score `minMatch`. A fuzzy match is
    /// `fuzzyCeiling` times the mean of similarity and coverage, and similarity (shared over
    /// both names' trigrams) is at most coverage (shared over the query's), so a name holding
    /// `s` scores at most the expression below, computed as `match` computes it (its rounding
    /// is monotonic). A name holding the query at a word's start (scores 0.8–1) holds all its
    /// trigrams but perhaps the last word's end, at least `count - 1`, never fewer than this.
    public var minShared: Int {
        let n = Double(queryTrigrams.count)
        return (1...max(1, queryTrigrams.count)).first { s in
            Self.fuzzyCeiling * (Double(s) / n + Double(s) / n) / 2 >= Self.minMatch
        } ?? queryTrigrams.count
    }

    /// The trigrams the database looks names up by: the `count - minShared + 1` held by the
    /// fewest places (`counts`, `PlaceStore`'s `place_trigrams`; a trigram no place holds
    /// counts 0). A name holding `minShared` of the query's trigrams holds one of any that
    /// many, so these find every possible answer; the rarest find the fewest others (of
    /// central London's 2,047 names, 202 have a word starting with "g", 6 hold "osw").
    public func probe(counts: [String: Int]) -> [String] {
        let all = trigrams
        return Array(all.sorted { (counts[$0] ?? 0, $0) < (counts[$1] ?? 0, $1) }.prefix(all.count - minShared + 1)).sorted()
    }

    /// A name as the stores index it: each folded word padded as pg_trgm pads it
    /// ("  goswell   road " for "Goswell Road"), so that each trigram of the name is a
    /// substring (FTS5's trigram tokenizer and pg_trgm's LIKE find it) and no substring of
    /// three is a trigram the name lacks (the windows across words end in two spaces or are
    /// three, which no trigram is).
    public static func key(_ name: String) -> String {
        words(name).map { "  \($0) " }.joined()
    }

    /// Each trigram of the places' names with the number of places holding it, for `probe`.
    public static func trigramCounts(_ places: [Place]) -> [String: Int] {
        var counts: [UInt64: Int] = [:]
        for place in places {
            for t in trigrams(words(place.name)) { counts[t, default: 0] += 1 }
        }
        return Dictionary(uniqueKeysWithValues: counts.map { (text($0.key), $0.value) })
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

    /// How many of the query's trigrams `name` holds.
    func sharedTrigrams(_ name: String) -> Int { queryTrigrams.intersection(Self.trigrams(Self.words(name))).count }

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

    /// A trigram as text: its three code points (`trigrams` packs each in 21 bits).
    static func text(_ trigram: UInt64) -> String {
        var out = String.UnicodeScalarView()
        for shift in [42, 21, 0] {
            out.append(Unicode.Scalar(UInt32(trigram >> UInt64(shift) & 0x1F_FFFF)) ?? " ")
        }
        return String(out)
    }
}
