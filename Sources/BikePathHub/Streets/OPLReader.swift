// No imports: Fuzz/run.sh compiles this file alone (`// fuzz-sources:` of OPLReaderFuzz).

/// A position as OPL writes it: `x` is the longitude, `y` the latitude, in degrees.
public struct OPLLocation: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    public init(latitude: Double, longitude: Double) { (self.latitude, self.longitude) = (latitude, longitude) }
}

/// A node as `osmium add-locations-to-ways` leaves it: tagged (untagged ones are dropped).
public struct OPLNode: Sendable, Equatable {
    public var id: Int64
    public var tags: [String: String]
    /// nil when OPL wrote `x` and `y` empty: the node was deleted or had no location.
    public var location: OPLLocation?
}

/// A way with each node reference's location (`add-locations-to-ways`).
public struct OPLWay: Sendable, Equatable {
    public struct Ref: Sendable, Equatable {
        public var node: Int64
        /// nil when the node was not in the extract (osmium's `--ignore-missing-nodes`).
        public var location: OPLLocation?
    }
    public var id: Int64
    public var tags: [String: String]
    public var refs: [Ref]
}

public enum OPLElement: Sendable, Equatable {
    case node(OPLNode)
    case way(OPLWay)
    /// A relation or changeset: the streets take nothing from them.
    case other
}

/// Reads OSM's OPL text, one line an element (https://osmcode.org/opl-file-format/): a type
/// letter and id, then space-separated fields each named by its first letter: `T` tags as
/// `k=v,k=v`, `x`/`y` a node's longitude/latitude, `N` a way's refs as `n1x…y…,n2x…y…`, and
/// the metadata `v d c t i u` (skipped). Any character outside OPL's plain set is written
/// `%HEX%` (its Unicode code point): a space is `%20%`, a comma `%2c%`.
public enum OPLReader {
    /// A line that is not OPL, with its number (from 1) and what is wrong.
    public struct Error: Swift.Error, Equatable, CustomStringConvertible {
        public var line: Int
        public var problem: Problem
        public var description: String { "OPL line \(line): \(problem)" }
    }

    public enum Problem: Swift.Error, Equatable, CustomStringConvertible, Sendable {
        case unknownType(String)
        case badID(String)
        case unknownField(String)
        case badEscape(String)
        /// A tag without `=`.
        case badTag(String)
        case badCoordinate(String)
        case badNodeRef(String)

        public var description: String {
            switch self {
            case .unknownType(let s): "an element starts with n, w, r or c, not \(s.debugDescription)"
            case .badID(let s): "\(s.debugDescription) is not an element id"
            case .unknownField(let s): "unknown field \(s.debugDescription)"
            case .badEscape(let s): "bad %-escape in \(s.debugDescription) (OPL writes %HEX%, a Unicode code point)"
            case .badTag(let s): "the tag \(s.debugDescription) has no ="
            case .badCoordinate(let s): "\(s.debugDescription) is not a longitude x or latitude y in degrees"
            case .badNodeRef(let s): "\(s.debugDescription) is not a node reference nID[xLON yLAT]"
            }
        }
    }

    /// The element on `line` (number `number`, for errors); nil for an empty line.
    public static func element(_ line: Substring, number: Int) throws(Error) -> OPLElement? {
        do {
            return try parse(Array(line.utf8))
        } catch {
            throw Error(line: number, problem: error)
        }
    }

    private static let space = UInt8(ascii: " "), comma = UInt8(ascii: ","), equals = UInt8(ascii: "=")
    private static let percent = UInt8(ascii: "%")

    private static func parse(_ bytes: [UInt8]) throws(Problem) -> OPLElement? {
        let fields = bytes.split(separator: space, omittingEmptySubsequences: true)
        guard let head = fields.first, let type = head.first else { return nil }
        let id = try elementID(head.dropFirst())
        var tags: [String: String] = [:]
        var x: Double?? = nil, y: Double?? = nil
        var refs: [OPLWay.Ref] = []
        for field in fields.dropFirst() {
            let value = field.dropFirst()
            switch field.first {
            case UInt8(ascii: "T"): tags = try self.tags(value)
            case UInt8(ascii: "x"): x = try coordinate(value, limit: 180)
            case UInt8(ascii: "y"): y = try coordinate(value, limit: 90)
            case UInt8(ascii: "N"): refs = try nodeRefs(value)
            case UInt8(ascii: "v"), UInt8(ascii: "d"), UInt8(ascii: "c"), UInt8(ascii: "t"), UInt8(ascii: "i"),
                UInt8(ascii: "u"), UInt8(ascii: "M"):
                continue
            default: throw .unknownField(text(field))
            }
        }
        switch type {
        case UInt8(ascii: "n"):
            let location = (x ?? nil).flatMap { lon in (y ?? nil).map { OPLLocation(latitude: $0, longitude: lon) } }
            return .node(OPLNode(id: id, tags: tags, location: location))
        case UInt8(ascii: "w"): return .way(OPLWay(id: id, tags: tags, refs: refs))
        case UInt8(ascii: "r"), UInt8(ascii: "c"): return .other
        default: throw .unknownType(text(head.prefix(1)))
        }
    }

    /// Decimal digits, an optional leading minus (OPL ids of new, unsaved objects are negative).
    private static func elementID(_ digits: ArraySlice<UInt8>) throws(Problem) -> Int64 {
        guard digits.count <= 20, let id = Int64(text(digits)) else { throw .badID(text(digits)) }
        return id
    }

    /// nil for an empty value: OPL's way of writing "no location".
    private static func coordinate(_ value: ArraySlice<UInt8>, limit: Double) throws(Problem) -> Double? {
        if value.isEmpty { return nil }
        guard value.count <= 24, let degrees = Double(text(value)), degrees.isFinite, abs(degrees) <= limit else {
            throw .badCoordinate(text(value))
        }
        return degrees
    }

    private static func tags(_ value: ArraySlice<UInt8>) throws(Problem) -> [String: String] {
        var tags: [String: String] = [:]
        for pair in value.split(separator: comma) {
            guard let eq = pair.firstIndex(of: equals) else { throw .badTag(text(pair)) }
            tags[try unescaped(pair[..<eq])] = try unescaped(pair[(eq + 1)...])
        }
        return tags
    }

    private static func nodeRefs(_ value: ArraySlice<UInt8>) throws(Problem) -> [OPLWay.Ref] {
        var refs: [OPLWay.Ref] = []
        for ref in value.split(separator: comma) {
            guard ref.first == UInt8(ascii: "n") else { throw .badNodeRef(text(ref)) }
            let body = ref.dropFirst()
            let x = body.firstIndex(of: UInt8(ascii: "x")), y = body.firstIndex(of: UInt8(ascii: "y"))
            let idEnd = x ?? body.endIndex
            guard let id = Int64(text(body[..<idEnd])) else { throw .badNodeRef(text(ref)) }
            guard let x else {
                refs.append(OPLWay.Ref(node: id, location: nil))
                continue
            }
            guard let y, y > x else { throw .badNodeRef(text(ref)) }
            let lon = try coordinate(body[(x + 1)..<y], limit: 180), lat = try coordinate(body[(y + 1)...], limit: 90)
            refs.append(OPLWay.Ref(node: id, location: lon.flatMap { lon in lat.map { OPLLocation(latitude: $0, longitude: lon) } }))
        }
        return refs
    }

    /// `%HEX%` sequences decoded to the code point they name.
    static func unescaped(_ bytes: ArraySlice<UInt8>) throws(Problem) -> String {
        guard bytes.contains(percent) else { return text(bytes) }
        var out = String.UnicodeScalarView()
        var plain: [UInt8] = []
        var i = bytes.startIndex
        while i < bytes.endIndex {
            guard bytes[i] == percent else {
                plain.append(bytes[i])
                i += 1
                continue
            }
            out.append(contentsOf: String(decoding: plain, as: UTF8.self).unicodeScalars)
            plain.removeAll(keepingCapacity: true)
            let digits = bytes[(i + 1)...].prefix { $0 != percent }
            // Unicode code points have at most 6 hex digits.
            guard digits.endIndex < bytes.endIndex, (1...6).contains(digits.count),
                let value = UInt32(text(digits), radix: 16), let scalar = Unicode.Scalar(value)
            else { throw .badEscape(text(bytes)) }
            out.append(scalar)
            i = digits.endIndex + 1
        }
        out.append(contentsOf: String(decoding: plain, as: UTF8.self).unicodeScalars)
        return String(out)
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
}
