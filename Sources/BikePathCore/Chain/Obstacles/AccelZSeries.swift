/// The single-column series `bikepathd detect` reads: an optional header line `acc_z`,
/// then one vertical acceleration in m/s² per line. Blank lines are skipped; CR/LF and
/// surrounding spaces are tolerated; anything else is an error naming the line.
public enum AccelZSeries {
    /// A line that is not a finite number: its 1-based number and its text.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var line: Int
        public var text: String
        public var description: String { "line \(line): not a finite number: \"\(text)\"" }
    }

    /// The values of a series, in order (an optional first line `acc_z` is skipped).
    /// - Throws: `ParseError` for the first line that is not a finite number.
    public static func parse(_ text: String) throws(ParseError) -> [Float] {
        var values: [Float] = []
        var lineNumber = 0
        // Split on Character newlines: "\r\n" is one Character in Swift, so splitting on "\n" alone would miss it.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            lineNumber += 1
            let line = trimmed(raw)
            if line.isEmpty { continue }
            if lineNumber == 1 && line == "acc_z" { continue }
            guard let v = Float(line), v.isFinite else {
                throw ParseError(line: lineNumber, text: String(line.prefix(40)))
            }
            values.append(v)
        }
        return values
    }

    static func trimmed(_ s: Substring) -> Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = s.firstIndex(where: { !blank($0) }), let last = s.lastIndex(where: { !blank($0) }) else {
            return ""
        }
        return s[first...last]
    }
}
