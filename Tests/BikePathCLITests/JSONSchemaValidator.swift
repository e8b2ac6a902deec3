import Foundation

/// A JSON value as decoded, keeping booleans, numbers and strings apart (a number in a
/// string stays a string, `true` never becomes 1).
enum JSONValue: Decodable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    static func parse(_ text: String) throws -> JSONValue { try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }
}

/// The part of JSON Schema (2020-12) that docs/json-schema.json uses: `$ref` to `#/$defs/…`,
/// `type`, `const`, `enum`, `pattern`, `minimum`, `maximum`, `properties`, `required`,
/// `additionalProperties`, `items`, `minItems`, `maxItems`. A keyword outside this set is
/// reported as a failure, so the schema can never say more than is checked.
struct JSONSchemaValidator {
    let root: JSONValue

    init(path: String) throws {
        root = try JSONValue.parse(try String(contentsOfFile: path, encoding: .utf8))
    }

    static let annotations: Set<String> = ["$schema", "$id", "$defs", "$comment", "title", "description"]
    static let keywords: Set<String> = [
        "$ref", "type", "const", "enum", "pattern", "minimum", "maximum", "properties", "required",
        "additionalProperties", "items", "minItems", "maxItems",
    ]

    /// The definitions by name (`$defs`).
    var definitions: [String: JSONValue] {
        if case .object(let o) = root, case .object(let defs)? = o["$defs"] { return defs }
        return [:]
    }

    /// Every way `value` breaks the definition `name`, each with its path.
    func violations(of value: JSONValue, definition name: String) -> [String] {
        guard let schema = definitions[name] else { return ["no definition \(name) in the schema"] }
        return check(value, schema, "$")
    }

    private func check(_ value: JSONValue, _ schema: JSONValue, _ path: String) -> [String] {
        guard case .object(let s) = schema else { return schema == .bool(true) ? [] : ["\(path): schema false"] }
        var out: [String] = []
        for key in s.keys where !Self.keywords.contains(key) && !Self.annotations.contains(key) {
            out.append("\(path): the validator does not know the keyword \(key)")
        }
        if case .string(let ref)? = s["$ref"] {
            let name = ref.replacingOccurrences(of: "#/$defs/", with: "")
            if let target = definitions[name] { out += check(value, target, path) } else { out.append("\(path): no definition \(ref)") }
        }
        if let type = s["type"] {
            var allowed: [String] = []
            if case .string(let t) = type { allowed = [t] }
            if case .array(let ts) = type { for case .string(let t) in ts { allowed.append(t) } }
            if !allowed.contains(where: { Self.isOfType(value, $0) }) {
                out.append("\(path): \(Self.show(value)) is not \(allowed.joined(separator: " or "))")
            }
        }
        if let c = s["const"], c != value { out.append("\(path): \(Self.show(value)) is not \(Self.show(c))") }
        if case .array(let options)? = s["enum"], !options.contains(value) {
            out.append("\(path): \(Self.show(value)) is not one of \(options.map(Self.show))")
        }
        if case .string(let pattern)? = s["pattern"], case .string(let text) = value,
            text.range(of: pattern, options: .regularExpression) == nil
        {
            out.append("\(path): \"\(text)\" does not match \(pattern)")
        }
        if case .number(let n) = value {
            if case .number(let min)? = s["minimum"], n < min { out.append("\(path): \(n) < \(min)") }
            if case .number(let max)? = s["maximum"], n > max { out.append("\(path): \(n) > \(max)") }
        }
        if case .object(let o) = value {
            let properties: [String: JSONValue] = if case .object(let p)? = s["properties"] { p } else { [:] }
            if case .array(let required)? = s["required"] {
                for case .string(let key) in required where o[key] == nil { out.append("\(path): \(key) is missing") }
            }
            for (key, child) in o.sorted(by: { $0.key < $1.key }) {
                if let p = properties[key] {
                    out += check(child, p, "\(path).\(key)")
                } else if let extra = s["additionalProperties"] {
                    if extra == .bool(false) {
                        out.append("\(path): \(key) is not in the schema")
                    } else {
                        out += check(child, extra, "\(path).\(key)")
                    }
                }
            }
        }
        if case .array(let a) = value {
            if case .number(let min)? = s["minItems"], Double(a.count) < min { out.append("\(path): fewer than \(Int(min)) items") }
            if case .number(let max)? = s["maxItems"], Double(a.count) > max { out.append("\(path): more than \(Int(max)) items") }
            if let items = s["items"] {
                for (i, child) in a.enumerated() { out += check(child, items, "\(path)[\(i)]") }
            }
        }
        return out
    }

    static func isOfType(_ value: JSONValue, _ type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("number", .number), ("string", .string), ("array", .array), ("object", .object): true
        case ("integer", .number(let n)): n == n.rounded()
        default: false
        }
    }

    static func show(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let b): "\(b)"
        case .number(let n): "\(n)"
        case .string(let s): "\"\(s.prefix(60))\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
