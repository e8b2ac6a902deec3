/// A lexical pass over configuration text before the TOML library sees it.
///
/// toml++ (inside TOMLKit) asserts, and so aborts the process, on a table header whose
/// name starts with a character that is neither a bare-key character nor a quote:
/// `[é]`, `[ !]`, `[.a]`, `[[=]]` (toml.hpp, `parser::parse_key`). A daemon that reloads
/// its file on SIGHUP must never die of a typo, so such a header is refused here with a
/// line number, like any other syntax problem. The pass knows just enough TOML to tell a
/// header from a `[` inside a value or a string: statements, strings (basic, literal,
/// multi-line), comments and bracket depth. `Fuzz/Targets/ConfigurationTextFuzz.swift`
/// runs it in front of the real toml++ parser and fails on any abort this pass lets by.
///
/// Pure and dependency-free (the fuzz runner compiles this file alone).
public enum TOMLPrescan {
    public struct Problem: Error, Equatable, Sendable {
        /// 1-based line of the offending header.
        public var line: Int
        public var reason: String
    }

    /// nil when the text can be handed to toml++; else the first header it would abort on,
    /// or the first NUL character. TOMLKit reads a string value back as a C string, so a
    /// NUL (raw, or written `\u0000`) silently cut `store.path = "/a\u0000b"` to `/a`.
    public static func check(_ text: String) -> Problem? {
        var lexer = Lexer(bytes: Array(text.utf8))
        // toml++ skips a UTF-8 byte order mark; so does this pass, or the first line's
        // header would go unseen (found by the fuzz target: BOM, then "[" and a newline).
        if lexer.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { lexer.i = 3 }
        if let nul = lexer.bytes.firstIndex(of: 0) {
            return Problem(line: 1 + lexer.bytes[..<nul].count { $0 == 0x0A }, reason: "a NUL byte: no setting can hold one")
        }
        return lexer.run()
    }

    private struct Lexer {
        let bytes: [UInt8]
        var i = 0
        var line = 1
        /// A `\u0000` or `\U00000000` escape met inside a basic string.
        var nulEscape: Problem?

        init(bytes: [UInt8]) { self.bytes = bytes }

        func peek(_ offset: Int = 0) -> UInt8? {
            i + offset < bytes.count ? bytes[i + offset] : nil
        }

        static func isBareKey(_ b: UInt8) -> Bool {
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x5F || b == 0x2D
        }

        mutating func advance() {
            if bytes[i] == 0x0A { line += 1 }
            i += 1
        }

        mutating func skipBlanks() {
            while let b = peek(), b == 0x20 || b == 0x09 { advance() }
        }

        /// Statement by statement: a header, a key/value pair, a comment or a blank line.
        mutating func run() -> Problem? {
            while i < bytes.count {
                skipBlanks()
                guard let b = peek() else { return nil }
                switch b {
                case 0x0A, 0x0D: advance()
                case 0x23: skipComment()  // #
                case 0x5B:  // [ at a statement's start: a table header
                    if let problem = header() { return problem }
                default:
                    if let problem = skipLine() { return problem }
                }
                if let nulEscape { return nulEscape }
            }
            return nil
        }

        mutating func header() -> Problem? {
            let start = line
            advance()
            if peek() == 0x5B { advance() }
            skipBlanks()
            guard let first = peek() else { return nil }
            if !(Self.isBareKey(first) || first == 0x22 || first == 0x27 || first == 0x5D) {
                let shown = first < 0x80 && first >= 0x20 ? "'\(Character(Unicode.Scalar(first)))'" : "a non-ASCII character"
                return Problem(
                    line: start, reason: "a table name starts with \(shown); a name is letters, digits, _ and - (or a quoted string)")
            }
            return skipLine() ?? nulEscape
        }

        /// At a backslash inside a basic string: notes a NUL escape, steps over the escape.
        mutating func escape() {
            let digits = peek(1) == 0x75 ? 4 : peek(1) == 0x55 ? 8 : 0  // u, U
            if digits > 0, nulEscape == nil, (0..<digits).allSatisfy({ peek(2 + $0) == 0x30 }) {
                nulEscape = Problem(line: line, reason: "a NUL character (\\u0000) in a string: no setting can hold one")
            }
            advance()
            if let n = peek(), n != 0x0A { advance() }
        }

        mutating func skipComment() {
            while let b = peek(), b != 0x0A { advance() }
        }

        /// To the end of the statement: strings, comments and brackets may span lines.
        /// toml++ also aborts on a `}` where an array's element is due (`a = [1, }`), so a
        /// closer that does not match the innermost open bracket is refused here.
        mutating func skipLine() -> Problem? {
            var open: [UInt8] = []
            while let b = peek() {
                switch b {
                case 0x0A:
                    if open.isEmpty { return nil }
                    advance()
                case 0x23: skipComment()
                case 0x22, 0x27: skipString(quote: b)
                case 0x5B, 0x7B: open.append(b); advance()
                case 0x5D, 0x7D:
                    if let innermost = open.popLast(), innermost != (b == 0x5D ? 0x5B : 0x7B) {
                        let (closer, opener) = b == 0x5D ? ("]", "{") : ("}", "[")
                        return Problem(line: line, reason: "a '\(closer)' where the '\(opener)' before it is still open")
                    }
                    advance()
                default: advance()
                }
            }
            return nil
        }

        /// A basic ("…", escapes) or literal ('…') string, single- or multi-line.
        mutating func skipString(quote: UInt8) {
            let multi = peek(1) == quote && peek(2) == quote
            if multi {
                advance(); advance(); advance()
                while let b = peek() {
                    if b == 0x5C, quote == 0x22 { escape(); continue }
                    if b == quote, peek(1) == quote, peek(2) == quote {
                        advance(); advance(); advance()
                        // Up to two more quotes may close it (`""""` ends with a quote in the string).
                        while peek() == quote { advance() }
                        return
                    }
                    advance()
                }
                return
            }
            advance()
            while let b = peek(), b != 0x0A {
                if b == 0x5C, quote == 0x22 { escape(); continue }
                advance()
                if b == quote { return }
            }
        }
    }
}
