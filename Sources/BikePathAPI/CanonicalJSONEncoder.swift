/// Canonical JSON written straight to bytes: the bytes `WireJSON.encode` gives (sorted
/// keys in UTF-8 byte order, no whitespace, `/` unescaped, `-0` as `0`, numbers as Swift
/// prints them), for the record types (`CanonicalJSONTests` holds it to that). The hub
/// encodes every stored record this way: Foundation's `JSONEncoder` on Linux builds a
/// value tree, boxes every number and sorts each object's keys after the fact, which made
/// the re-encode a third of the hub's CPU under load (a 120-point path is 360 values).
///
/// Supports what the wire types use: objects, arrays, strings, integers, `Double`,
/// `Float`, `Bool`, `nil`, nested containers. Not `Date`, `Data`, `URL` or `Decimal`,
/// which `JSONEncoder` special-cases (they would come out in their `Codable` form).
public enum CanonicalJSONEncoder {
    /// `value` as canonical JSON text.
    /// - Throws: `EncodingError.invalidValue` for a non-finite number, or what `value` throws.
    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = Node()
        try value.encode(to: encoder)
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        encoder.render(into: &out)
        return out
    }
}

/// One value being encoded; containers render their children once all are written.
private final class Node: Encoder {
    enum Content {
        case empty
        case scalar([UInt8])
        case object(ObjectBox)
        case array(ArrayBox)
    }

    var content = Content.empty
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object(let box) = content { return KeyedEncodingContainer(KeyedContainer(box: box)) }
        let box = ObjectBox()
        content = .object(box)
        return KeyedEncodingContainer(KeyedContainer(box: box))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array(let box) = content { return UnkeyedContainer(box: box) }
        let box = ArrayBox()
        content = .array(box)
        return UnkeyedContainer(box: box)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueContainer(node: self) }

    func render(into out: inout [UInt8]) {
        switch content {
        case .empty: out.append(contentsOf: [0x7B, 0x7D])  // {}: what JSONEncoder writes for a value that encodes nothing
        case .scalar(let bytes): out.append(contentsOf: bytes)
        case .array(let box): box.render(into: &out)
        case .object(let box): box.render(into: &out)
        }
    }

    /// `value`'s canonical bytes, appended to `out`.
    static func append<T: Encodable>(_ value: T, to out: inout [UInt8]) throws {
        if try Scalar.write(value, into: &out) { return }
        let child = Node()
        try value.encode(to: child)
        child.render(into: &out)
    }
}

/// An object's members; sorted by key when rendered.
private final class ObjectBox {
    var members: [(key: String, value: [UInt8])] = []
    /// Members whose value is a nested container still being written.
    var nested: [(key: String, node: Node)] = []

    func render(into out: inout [UInt8]) {
        var all = members
        for (key, node) in nested {
            var bytes: [UInt8] = []
            node.render(into: &bytes)
            all.append((key, bytes))
        }
        all.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        out.append(0x7B)  // {
        for (i, member) in all.enumerated() {
            if i > 0 { out.append(0x2C) }  // ,
            Scalar.string(member.key, into: &out)
            out.append(0x3A)  // :
            out.append(contentsOf: member.value)
        }
        out.append(0x7D)  // }
    }
}

/// An array's elements, rendered as they come; nested containers are filled in at render.
private final class ArrayBox {
    var bytes: [UInt8] = []
    var count = 0
    var nested: [(offset: Int, node: Node)] = []

    func separate() {
        if count > 0 { bytes.append(0x2C) }  // ,
        count += 1
    }

    func render(into out: inout [UInt8]) {
        out.append(0x5B)  // [
        var copied = 0
        for (offset, node) in nested {
            out.append(contentsOf: bytes[copied..<offset])
            node.render(into: &out)
            copied = offset
        }
        out.append(contentsOf: bytes[copied...])
        out.append(0x5D)  // ]
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: ObjectBox
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { box.members.append((key.stringValue, Literal.null)) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        var bytes: [UInt8] = []
        try Node.append(value, to: &bytes)
        box.members.append((key.stringValue, bytes))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<
        NestedKey
    > {
        nested(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { nested(key).unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { nested(Key(stringValue: "super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { nested(key) }

    private func nested(_ key: Key?) -> Node {
        let node = Node()
        box.nested.append((key?.stringValue ?? "super", node))
        return node
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let box: ArrayBox
    var codingPath: [any CodingKey] { [] }
    var count: Int { box.count }

    mutating func encodeNil() throws {
        box.separate()
        box.bytes.append(contentsOf: Literal.null)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        box.separate()
        try Node.append(value, to: &box.bytes)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        nested().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { nested().unkeyedContainer() }
    mutating func superEncoder() -> any Encoder { nested() }

    private func nested() -> Node {
        box.separate()
        let node = Node()
        box.nested.append((box.bytes.count, node))
        return node
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let node: Node
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { node.content = .scalar(Literal.null) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        var scalar: [UInt8] = []
        if try Scalar.write(value, into: &scalar) {
            node.content = .scalar(scalar)
        } else if let integer = value as? any BinaryInteger {  // the other widths: rare, so a cast is fine here
            node.content = .scalar(Array("\(integer)".utf8))
        } else {
            try value.encode(to: node)  // a type that encodes itself as another single value (an enum's raw value)
        }
    }
}

private enum Literal {
    static let null = Array("null".utf8), yes = Array("true".utf8), no = Array("false".utf8)
}

/// JSON text of the scalar types, as `JSONEncoder` writes them.
private enum Scalar {
    /// Appends `value` when it is a scalar and says so; false for anything else (a container).
    static func write<T: Encodable>(_ value: T, into out: inout [UInt8]) throws -> Bool {
        // Comparing metatypes is cheap; a dynamic cast per number is not.
        if T.self == Double.self {
            try number(unsafeBitCast(value, to: Double.self), into: &out)
        } else if T.self == String.self {
            string(unsafeBitCast(value, to: String.self), into: &out)
        } else if T.self == Int64.self {
            out.append(contentsOf: unsafeBitCast(value, to: Int64.self).description.utf8)
        } else if T.self == Int.self {
            out.append(contentsOf: unsafeBitCast(value, to: Int.self).description.utf8)
        } else if T.self == Bool.self {
            out.append(contentsOf: unsafeBitCast(value, to: Bool.self) ? Literal.yes : Literal.no)
        } else if T.self == Float.self {
            try number(unsafeBitCast(value, to: Float.self), into: &out)
        } else {
            return false
        }
        return true
    }

    /// Shortest round-trip digits, without a trailing `.0`; any zero is `0` (the canonical zero).
    static func number<F: BinaryFloatingPoint & LosslessStringConvertible>(_ value: F, into out: inout [UInt8]) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "\(value) is not a JSON number"))
        }
        if value == 0 {
            out.append(0x30)
            return
        }
        let text = value.description
        out.append(contentsOf: text.hasSuffix(".0") ? text.utf8.dropLast(2) : text.utf8[...])
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\n`-style or `\u00XX`, the rest as is.
    static func string(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        for c in s.utf8 {
            switch c {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, 0x6E])  // \n
            case 0x0D: out.append(contentsOf: [0x5C, 0x72])  // \r
            case 0x09: out.append(contentsOf: [0x5C, 0x74])  // \t
            case 0x08: out.append(contentsOf: [0x5C, 0x62])  // \b
            case 0x0C: out.append(contentsOf: [0x5C, 0x66])  // \f
            case 0..<0x20:
                out.append(contentsOf: Array("\\u00".utf8))
                out.append(hexDigits[Int(c >> 4)])
                out.append(hexDigits[Int(c & 0x0F)])
            default: out.append(c)
            }
        }
        out.append(0x22)
    }

    static let hexDigits = Array("0123456789abcdef".utf8)
}
