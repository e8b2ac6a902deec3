/// One bad value in a configuration file: where, which key, and why.
public struct ConfigurationProblem: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based; nil when the key could not be found in the text (e.g. an override).
    public var line: Int?
    /// Dotted key, e.g. `gnss.port` or `privacy.zones[1].lat`; `(syntax)` for parse errors.
    public var key: String
    public var reason: String

    /// Creates a problem: the file, the 1-based line (nil when unknown), the dotted key and why.
    public init(file: String, line: Int?, key: String, reason: String) {
        self.file = file
        self.line = line
        self.key = key
        self.reason = reason
    }

    public var description: String {
        let place = line.map { "\(file):\($0)" } ?? file
        return "\(place): \(key): \(reason)"
    }
}

/// Every problem found in one file; the daemon refuses to start with any.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var problems: [ConfigurationProblem]

    /// Creates the error from the problems found, in file order.
    public init(problems: [ConfigurationProblem]) { self.problems = problems }

    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}
