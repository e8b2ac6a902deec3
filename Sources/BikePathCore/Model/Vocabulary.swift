/// The rider's vocabulary, declared once: every value a rider reads or types (a draft's
/// state, a path status, where a record stands in the outbox, an obstacle kind) has a
/// human word, which the CLI prints and the review page shows, and a stable JSON value
/// (`rawValue`), which `--json`, the store and the wire keep. docs/json.md, "Vocabulary".
///
/// What the rider types is read by `RiderWord.parse`: the word, the JSON value, or a
/// prefix of either that names one value only, in any case.
public protocol RiderWord: CaseIterable, Sendable, RawRepresentable where RawValue == String {
    /// What a person reads: "needs maintenance", not `requiresMaintenance`.
    var word: String { get }
    /// What the value is, for the refusal of a word that names none ("path status").
    static var vocabularyName: String { get }
}

extension RiderWord {
    /// The words every value answers to, in declaration order, without repeats
    /// (two draft states may share a word: "confirmed").
    public static var words: [String] {
        var seen: Set<String> = []
        return allCases.map(\.word).filter { seen.insert($0).inserted }
    }

    /// The value `text` names: its word or JSON value (any case, spaces, `-` and `_` alike, and
    /// the JSON value's words may stand apart: `requires-maintenance`),
    /// or a prefix of one that leaves a single value. When several values share a word
    /// (`confirmed` and `queued` both read "confirmed"), the exact JSON value or the first
    /// value with the word is taken.
    /// - Throws: `VocabularyError` naming the words it takes.
    public static func parse(_ text: String) throws(VocabularyError) -> Self {
        let wanted = Vocabulary.fold(text)
        guard !wanted.isEmpty else { throw VocabularyError(Self.self, text: text, matches: []) }
        // The JSON value with its words apart (`requires-maintenance`, `requires maintenance`):
        // the API's camelCase value as a command line spells it.
        let joined = String(wanted.filter { $0 != " " })
        if let exact = allCases.first(where: { Vocabulary.fold($0.rawValue) == wanted || Vocabulary.fold($0.rawValue) == joined }) {
            return exact
        }
        if let exact = allCases.first(where: { Vocabulary.fold($0.word) == wanted }) { return exact }
        let matches = allCases.filter { Vocabulary.fold($0.word).hasPrefix(wanted) || Vocabulary.fold($0.rawValue).hasPrefix(wanted) }
        // Values sharing a word are one answer to the rider: take the first.
        let distinctWords = Set(matches.map(\.word))
        guard let first = matches.first, distinctWords.count == 1 else {
            throw VocabularyError(Self.self, text: text, matches: matches.map(\.word))
        }
        return first
    }
}

/// A word that names no value, or more than one.
public struct VocabularyError: Error, Equatable, CustomStringConvertible {
    /// "path status", "draft state", …
    public var vocabulary: String
    public var text: String
    /// The words `text` could start (empty when it names none).
    public var matches: [String]
    /// Every word the vocabulary takes.
    public var words: [String]

    public init<W: RiderWord>(_ type: W.Type, text: String, matches: [String]) {
        vocabulary = W.vocabularyName
        self.text = text
        var seen: Set<String> = []
        self.matches = matches.filter { seen.insert($0).inserted }
        words = W.words
    }

    public var description: String {
        let list = words.map { "\"\($0)\"" }.joined(separator: ", ")
        if matches.count > 1 {
            return
                "'\(text)' could be the \(vocabulary) \(matches.map { "\"\($0)\"" }.joined(separator: " or ")); type more of it (one of \(list))"
        }
        return "'\(text)' is not a \(vocabulary); use one of \(list) (or a prefix)"
    }
}

/// The folding `RiderWord.parse` compares under.
public enum Vocabulary {
    /// Lower case, `-`, `_` and runs of spaces as one space, trimmed: "Needs-Maintenance" reads "needs maintenance".
    public static func fold(_ text: String) -> String {
        let spaced = text.lowercased().map { $0 == "-" || $0 == "_" ? " " : $0 }
        return String(spaced).split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}

extension PathStatus: RiderWord {
    public var word: String {
        switch self {
        case .optimal: "optimal"
        case .medium: "medium"
        case .sufficient: "sufficient"
        case .requiresMaintenance: "needs maintenance"
        }
    }
    public static var vocabularyName: String { "path status" }
}

extension ObstacleKind: RiderWord {
    public var word: String { rawValue }
    public static var vocabularyName: String { "obstacle kind" }
}
