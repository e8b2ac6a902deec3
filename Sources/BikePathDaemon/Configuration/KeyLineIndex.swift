/// Line numbers of keys in a TOML text. TOMLKit reports lines only for syntax
/// errors, so `config check` finds a key's line by scanning the source: each
/// `[table]` / `[[array.of.tables]]` header and each `key = value` line is
/// recorded under its full dotted path (`privacy.zones[1].lat`). A key that is
/// not on a line of its own (inside an inline table) falls back to its parent.
struct KeyLineIndex {
    private var lines: [String: Int] = [:]

    init(text: String) {
        var header: [String] = []
        var arrayCounts: [String: Int] = [:]
        for (offset, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let lineNumber = offset + 1
            let line = rawLine.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("[[") {
                guard let end = line.range(of: "]]") else { continue }
                let name = Self.dottedPath(line[line.index(line.startIndex, offsetBy: 2)..<end.lowerBound])
                let joined = name.joined(separator: ".")
                let index = arrayCounts[joined, default: 0]
                arrayCounts[joined] = index + 1
                header = name
                header[header.count - 1] += "[\(index)]"
                record(header, lineNumber)
            } else if line.hasPrefix("[") {
                guard let end = line.firstIndex(of: "]") else { continue }
                header = Self.dottedPath(line[line.index(after: line.startIndex)..<end])
                record(header, lineNumber)
            } else if let equals = line.firstIndex(of: "="), let first = line.first,
                first.isLetter || first.isNumber || first == "_" || first == "-" || first == "\"" || first == "'"
            {
                record(header + Self.dottedPath(line[..<equals]), lineNumber)
            }
        }
    }

    private mutating func record(_ path: [String], _ line: Int) {
        let key = path.joined(separator: ".")
        if lines[key] == nil { lines[key] = line }
    }

    /// The line of `path`, or of its nearest enclosing key or table that is on a line.
    func line(of path: [String]) -> Int? {
        var path = path
        while !path.isEmpty {
            if let line = lines[path.joined(separator: ".")] { return line }
            let last = path.removeLast()
            // `zones[2]` written inline: try `zones` itself before its table.
            if let bracket = last.firstIndex(of: "[") { path.append(String(last[..<bracket])) }
        }
        return nil
    }

    /// `a . "b.c" . d` → ["a", "b.c", "d"].
    static func dottedPath<S: StringProtocol>(_ text: S) -> [String] {
        var parts: [String] = []
        var current = ""
        var quote: Character?
        for c in text {
            if let q = quote {
                if c == q { quote = nil } else { current.append(c) }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "." {
                parts.append(current.trimmingSpaces())
                current = ""
            } else {
                current.append(c)
            }
        }
        parts.append(current.trimmingSpaces())
        return parts
    }
}

extension String {
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
