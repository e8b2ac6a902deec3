import Foundation

/// `--name value` pairs after a benchmark's name. The benchmarks are driven by
/// scripts in bench/ and by tests, never typed by a rider: a small reader
/// with clear errors is enough.
struct BenchOptions {
    private var values: [String: String] = [:]
    /// What is left after the options (positional arguments).
    private(set) var positional: [String] = []

    init(_ arguments: some Sequence<String>) throws(BenchUsageError) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard argument.hasPrefix("--") else { positional.append(argument); continue }
            guard let value = iterator.next() else { throw .missingValue(argument) }
            values[String(argument.dropFirst(2))] = value
        }
    }

    func string(_ name: String) -> String? { values[name] }

    func required(_ name: String) throws(BenchUsageError) -> String {
        guard let value = values[name] else { throw .missing(name) }
        return value
    }

    func int(_ name: String, default fallback: Int) throws(BenchUsageError) -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text) else { throw .notANumber(name, text) }
        return value
    }

    func double(_ name: String, default fallback: Double) throws(BenchUsageError) -> Double {
        guard let text = values[name] else { return fallback }
        guard let value = Double(text), value.isFinite else { throw .notANumber(name, text) }
        return value
    }
}

enum BenchUsageError: Error, CustomStringConvertible {
    case missing(String)
    case missingValue(String)
    case notANumber(String, String)

    var description: String {
        switch self {
        case .missing(let name): "--\(name) is required"
        case .missingValue(let flag): "\(flag) needs a value"
        case .notANumber(let name, let text): "--\(name): not a number: \(text)"
        }
    }
}
