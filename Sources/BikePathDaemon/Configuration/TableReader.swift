import Foundation
import TOMLKit

/// Collects the problems of one file, each with its line.
final class ProblemCollector {
    let file: String
    let lines: KeyLineIndex
    private(set) var problems: [ConfigurationProblem] = []

    init(file: String, text: String) {
        self.file = file
        self.lines = KeyLineIndex(text: text)
    }

    func report(_ path: [String], _ reason: String) {
        problems.append(ConfigurationProblem(file: file, line: lines.line(of: path), key: path.joined(separator: "."), reason: reason))
    }
}

/// Reads the keys of one TOML table into a value, checking type and range, and
/// reports every key it was not asked about as unknown. A key that is absent
/// keeps the default already in the target.
struct TableReader {
    let path: [String]
    let source: TOMLTable
    let problems: ProblemCollector
    private var known: Set<String> = []

    init(path: [String], table: TOMLTable, problems: ProblemCollector) {
        self.path = path
        self.source = table
        self.problems = problems
    }

    private mutating func value(_ key: String) -> TOMLValueConvertible? {
        known.insert(key)
        return source[key]
    }

    private func wrongType(_ key: String, _ value: TOMLValueConvertible, expected: String) {
        problems.report(path + [key], "expected \(expected), found \(value.type) \(Self.show(value))")
    }

    mutating func string(_ key: String, _ target: inout String, check: (String) -> String? = { _ in nil }) {
        guard let v = value(key) else { return }
        guard let s = v.string else { return wrongType(key, v, expected: "a string") }
        if let reason = check(s) { return problems.report(path + [key], reason) }
        target = s
    }

    mutating func int(_ key: String, _ target: inout Int, range: ClosedRange<Int>) {
        guard let v = value(key) else { return }
        guard let i = v.int else { return wrongType(key, v, expected: "an integer") }
        if let reason = Checks.inRange(i, range) { return problems.report(path + [key], reason) }
        target = i
    }

    /// Accepts integers too: `rate_hz = 100` is as good as `100.0`.
    mutating func double(_ key: String, _ target: inout Double, range: ClosedRange<Double>) {
        guard let v = value(key) else { return }
        guard let d = v.double ?? v.int.map(Double.init) else { return wrongType(key, v, expected: "a number") }
        if let reason = Checks.inRange(d, range, shown: Self.show(v)) { return problems.report(path + [key], reason) }
        target = d
    }

    mutating func bool(_ key: String, _ target: inout Bool) {
        guard let v = value(key) else { return }
        guard let b = v.bool else { return wrongType(key, v, expected: "true or false") }
        target = b
    }

    /// A key whose absence means something (nil), not a default.
    mutating func bool(_ key: String, _ target: inout Bool?) {
        guard let v = value(key) else { return }
        guard let b = v.bool else { return wrongType(key, v, expected: "true or false") }
        target = b
    }

    mutating func choice<E: RawRepresentable & CaseIterable>(_ key: String, _ target: inout E) where E.RawValue == String {
        guard let v = value(key) else { return }
        let names = E.allCases.map(\.rawValue).joined(separator: ", ")
        guard let s = v.string else { return wrongType(key, v, expected: "one of \(names)") }
        if let reason = Checks.choice(s, of: E.self) { return problems.report(path + [key], reason) }
        target = E(rawValue: s) ?? target
    }

    /// A sub-table; `read` is called only when it is present and is a table.
    mutating func table(_ key: String, _ read: (inout TableReader) -> Void) {
        guard let v = value(key) else { return }
        guard let t = v.table else { return wrongType(key, v, expected: "a table") }
        var reader = TableReader(path: path + [key], table: t, problems: problems)
        read(&reader)
        reader.finish()
    }

    /// An array of tables (`[[privacy.zones]]` or an inline array of inline tables).
    mutating func tables(_ key: String, _ read: (inout TableReader) -> Void) {
        guard let v = value(key) else { return }
        guard let array = v.array else { return wrongType(key, v, expected: "an array of tables") }
        for index in 0..<array.count {
            let element = array[index]
            let elementPath = path + ["\(key)[\(index)]"]
            guard let t = element.table else {
                problems.report(elementPath, "expected a table, found \(element.type) \(Self.show(element))")
                continue
            }
            var reader = TableReader(path: elementPath, table: t, problems: problems)
            read(&reader)
            reader.finish()
        }
    }

    /// Keys that must be present (no default makes sense, e.g. a zone's centre).
    func require(_ keys: String...) {
        for key in keys where source[key] == nil {
            problems.report(path + [key], "missing (required)")
        }
    }

    /// Reports every key nobody asked for.
    func finish() {
        for key in source.keys.sorted() where !known.contains(key) {
            problems.report(path + [key], "unknown key")
        }
    }

    static func show(_ value: TOMLValueConvertible) -> String {
        if let s = value.string { return "\"\(s)\"" }
        if value.type == .table { return "{…}" }
        if value.type == .array { return "[…]" }
        return value.debugDescription
    }

    static func format(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
    }
}
