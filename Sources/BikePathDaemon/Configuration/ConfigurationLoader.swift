import BikePathCore
import Foundation
import TOMLKit

/// Reads `bikepathd.toml` into a `DaemonConfiguration`, or names every bad value.
/// Nothing is guessed: a wrong type, an out-of-range number, a bad URL or an
/// unknown key is a problem, and any problem means no configuration.
public enum ConfigurationLoader {
    /// Parses and checks a whole file's text.
    public static func parse(_ text: String, file: String) throws(ConfigurationError) -> DaemonConfiguration {
        let problems = ProblemCollector(file: file, text: text)
        if let problem = TOMLPrescan.check(text) {
            // toml++ would abort the process on this (TOMLPrescan says which inputs).
            throw ConfigurationError(problems: [
                ConfigurationProblem(file: file, line: problem.line, key: "(syntax)", reason: problem.reason)
            ])
        }
        let root: TOMLTable
        do {
            root = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigurationError(problems: [
                ConfigurationProblem(
                    file: file, line: error.source.begin.line, key: "(syntax)", reason: error.description)
            ])
        } catch {
            throw ConfigurationError(problems: [
                ConfigurationProblem(
                    file: file, line: nil, key: "(syntax)", reason: "\(error)")
            ])
        }
        var configuration = DaemonConfiguration()
        var reader = TableReader(path: [], table: root, problems: problems)
        read(&reader, into: &configuration)
        reader.finish()
        checkCrashDetectionCanSendSOS(configuration, problems)
        if !problems.problems.isEmpty {
            // In file order, so the list reads top to bottom like the file.
            let ordered = problems.problems.enumerated().sorted {
                ($0.element.line ?? .max, $0.offset) < ($1.element.line ?? .max, $1.offset)
            }.map(\.element)
            throw ConfigurationError(problems: ordered)
        }
        return configuration
    }

    /// An SOS that cannot leave the device is worse than none (the rider believes
    /// help is called): crash detection needs a hub and SOS sharing not forbidden.
    /// With both, `run` turns SOS sharing on (docs/sync.md).
    static func checkCrashDetectionCanSendSOS(_ c: DaemonConfiguration, _ problems: ProblemCollector) {
        guard c.crash.enabled else { return }
        let crash = ConfigurationKey[\.crash.enabled], shareSOS = ConfigurationKey[\.privacy.shareSOS]
        let hubURL = ConfigurationKey.path(\.sync.hubURL)
        if c.privacy.shareSOS == false {
            problems.report(
                [shareSOS.section, shareSOS.name],
                "is false while \(crash.path) is true: every SOS would stay on the device; set \(shareSOS.name) = true (or remove it) or disable crash detection"
            )
        }
        if c.sync.hubURL.isEmpty {
            problems.report(
                [crash.section, crash.name],
                "is true but \(hubURL) is empty: an SOS could never be sent; set \(hubURL) or disable crash detection")
        }
    }

    /// Reads a file. A missing file is an error unless `missingIsDefault` (the
    /// daemon's default path: a fresh install runs on the defaults).
    public static func load(path: String, missingIsDefault: Bool = false) throws(ConfigurationError) -> DaemonConfiguration {
        guard FileManager.default.fileExists(atPath: path) else {
            if missingIsDefault { return DaemonConfiguration() }
            throw ConfigurationError(problems: [ConfigurationProblem(file: path, line: nil, key: "(file)", reason: "no such file")])
        }
        let data = try readFile(path)
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(problems: [ConfigurationProblem(file: path, line: nil, key: "(file)", reason: "not UTF-8 text")])
        }
        return try parse(text, file: path)
    }

    /// The file a command's `--config` names, or the default path (a missing
    /// default file means the defaults). Every command reads its defaults this way.
    public static func load(flag: String?) throws(ConfigurationError) -> DaemonConfiguration {
        try load(path: flag ?? DaemonConfiguration.defaultPath, missingIsDefault: flag == nil)
    }

    /// A configuration file is small text: at most this many bytes are read.
    static let maxFileBytes = 1 << 20

    /// The file's bytes. A regular file or a character device (`/dev/null`: the
    /// defaults) is read, up to `maxFileBytes`; a FIFO, socket or directory is
    /// refused by name rather than waited on or misreported as a permission problem.
    static func readFile(_ path: String) throws(ConfigurationError) -> Data {
        func problem(_ reason: String) -> ConfigurationError {
            ConfigurationError(problems: [ConfigurationProblem(file: path, line: nil, key: "(file)", reason: reason)])
        }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw problem("cannot read: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw problem("cannot read: \(String(cString: strerror(errno)))") }
        switch info.st_mode & S_IFMT {
        case S_IFREG, S_IFCHR: break
        case S_IFDIR: throw problem("is a directory, not a configuration file")
        case S_IFIFO: throw problem("is a FIFO, not a configuration file")
        case S_IFSOCK: throw problem("is a socket, not a configuration file")
        default: throw problem("is not a regular file")
        }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = Glibc.read(fd, &chunk, chunk.count)
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw problem("cannot read: \(String(cString: strerror(errno)))") }
            if n == 0 { return data }
            data.append(contentsOf: chunk[0..<n])
            guard data.count <= maxFileBytes else { throw problem("is larger than \(maxFileBytes) bytes: not a configuration file") }
        }
    }

    /// Each section's keys as `ConfigurationKey.all` declares them; any other key is a problem.
    static func read(_ root: inout TableReader, into c: inout DaemonConfiguration) {
        for section in ConfigurationKey.bySection {
            root.table(section.name) { t in
                for key in section.keys { key.read(&t, &c) }
            }
        }
    }
}

/// Value checks shared by the file and the command-line overrides; each
/// returns the reason a value is bad, or nil.
public enum Checks {
    /// "must not be empty" for an empty string.
    public static func nonEmpty(_ s: String) -> String? {
        s.isEmpty ? "must not be empty" : nil
    }

    /// Why `s` is not a usable absolute path (empty, holding a control character, too long for
    /// the kernel, relative); nil when it is.
    public static func absolutePath(_ s: String) -> String? {
        if s.isEmpty { return "must not be empty" }
        if let reason = pathText(s) { return reason }
        if !s.hasPrefix("/") {
            return "\"\(s)\" is relative; the configuration file takes absolute paths only (where the daemon starts is no place "
                + "to count from): write it from / — on the command line a relative path is fine"
        }
        return nil
    }

    /// Linux's PATH_MAX (4096 bytes with the terminating NUL) and NAME_MAX (255 bytes a
    /// component): open(2) answers ENAMETOOLONG past either, so such a path could only fail
    /// later, at the first file opened (a 100,000-character `store.path` passed `config check`).
    static let pathMax = Int(PATH_MAX), nameMax = Int(NAME_MAX)

    /// Why `s` cannot be a Linux path, whatever it names: a control character (NUL ends the C
    /// string early; BEL, ESC or a newline in a path is a typo or an attack on the log, never a
    /// file name a rider chose), longer than PATH_MAX, or a component longer than NAME_MAX.
    /// Says where, not the whole value: a 100,000-byte path is not one to print.
    static func pathText(_ s: String) -> String? {
        if let bad = firstControl(s) { return "contains the control character \(bad); a path holds none" }
        let bytes = s.utf8.count
        if bytes >= pathMax {
            return "is \(bytes) bytes long; a path holds at most \(pathMax - 1) (PATH_MAX \(pathMax), its NUL included)"
        }
        if let long = s.split(separator: "/").first(where: { $0.utf8.count > nameMax }) {
            return "has a component of \(long.utf8.count) bytes (\"\(long.prefix(16))…\"); a file name holds at most \(nameMax) (NAME_MAX)"
        }
        return nil
    }

    /// Why `s` cannot be a URL as written: a control character or a space (RFC 3986 allows
    /// neither; Foundation's `URL(string:)` took a BEL in `sync.hub_url`). Nil when it has none.
    static func urlText(_ s: String) -> String? {
        if let bad = firstControl(s) { return "contains the control character \(bad); a URL holds none" }
        if let space = s.firstIndex(of: " ") {
            return "contains a space at character \(s.distance(from: s.startIndex, to: space) + 1); write it as %20"
        }
        return nil
    }

    /// The first control character (Unicode category Cc: C0, DEL, C1) as `U+0007 at character 18`.
    private static func firstControl(_ s: String) -> String? {
        guard let index = s.unicodeScalars.firstIndex(where: { $0.properties.generalCategory == .control }) else { return nil }
        let scalar = s.unicodeScalars[index]
        let position = s.unicodeScalars.distance(from: s.unicodeScalars.startIndex, to: index) + 1
        return "U+" + String(format: "%04X", scalar.value) + " at character \(position)"
    }

    /// "\"V\" is not one of A, B, C" for a value no case of `E` has.
    static func choice<E: RawRepresentable & CaseIterable>(_ s: String, of: E.Type) -> String? where E.RawValue == String {
        E(rawValue: s) != nil ? nil : "\"\(s)\" is not one of \(E.allCases.map(\.rawValue).joined(separator: ", "))"
    }

    /// "V is out of range LO...HI", the file's and the flags' one wording (the file shows V as written).
    static func inRange(_ i: Int, _ range: ClosedRange<Int>) -> String? {
        range.contains(i) ? nil : "\(i) is out of range \(range.lowerBound)...\(range.upperBound)"
    }

    static func inRange(_ d: Double, _ range: ClosedRange<Double>, shown: String? = nil) -> String? {
        range.contains(d)
            ? nil
            : "\(shown ?? TableReader.format(d)) is out of range \(TableReader.format(range.lowerBound))...\(TableReader.format(range.upperBound))"
    }

    /// As `absolutePath`, but empty is allowed (the setting is off).
    public static func optionalAbsolutePath(_ s: String) -> String? {
        s.isEmpty ? nil : absolutePath(s)
    }

    /// sun_path holds 108 bytes including the terminating NUL.
    /// Empty (off) or `HOST:PORT` with a port in 1…65535.
    public static func listenAddress(_ s: String) -> String? {
        guard !s.isEmpty else { return nil }
        guard let colon = s.lastIndex(of: ":"), colon != s.startIndex, let port = Int(s[s.index(after: colon)...]),
            (1...65535).contains(port)
        else { return "must be HOST:PORT (for example 127.0.0.1:8080), or empty for no review page" }
        return nil
    }

    /// Empty (no street tiles) or an http(s) URL with `{z}`, `{x}` and `{y}`.
    public static func tileTemplate(_ s: String) -> String? {
        guard !s.isEmpty else { return nil }
        if let reason = urlText(s) { return reason }
        guard s.hasPrefix("https://") || s.hasPrefix("http://"), ["{z}", "{x}", "{y}"].allSatisfy(s.contains) else {
            return "must be an http(s) URL with {z}, {x} and {y} (for example https://tile.openstreetmap.org/{z}/{x}/{y}.png), or empty"
        }
        return nil
    }

    public static func socketPath(_ s: String) -> String? {
        if let reason = absolutePath(s) { return reason }
        return s.utf8.count > 107 ? "\(s) is longer than a Unix socket path may be (107 bytes): choose a shorter path" : nil
    }

    /// Why `s` is not an http(s) URL with a host; nil when it is, or when empty (no sync).
    public static func hubURL(_ s: String) -> String? {
        if s.isEmpty { return nil }
        if let reason = urlText(s) { return reason }
        guard let url = URL(string: s), let scheme = url.scheme?.lowercased() else {
            return "\"\(s)\" is not a URL"
        }
        guard scheme == "http" || scheme == "https" else { return "\"\(s)\": scheme must be http or https" }
        guard let host = url.host, !host.isEmpty else { return "\"\(s)\" has no host" }
        return nil
    }

    /// Why `s` is not a libiio context URI (`local:`, `ip:`, `usb:`, `serial:`, `xml:`); nil
    /// when it is.
    public static func iioURI(_ s: String) -> String? {
        let known = ["local:", "ip:", "usb:", "serial:", "xml:"]
        return known.contains { s.hasPrefix($0) } ? nil : "\"\(s)\" is not a libiio URI (local:, ip:HOST[:PORT], usb:, serial:, xml:)"
    }
}
