import Foundation

/// Limits on the shape of a JSON document, checked in one pass over the bytes
/// before any `JSONDecoder` runs (decoding costs ~0.6 µs and ~60 B per value, so
/// a 48 KB gzip of `[0,0],…` inflating to 32 MB used to cost 10 s and 1 GB).
public struct JSONLimits: Sendable, Equatable {
    /// Values of any kind (objects, arrays, strings, numbers, literals), nested ones included.
    public var maxValues: Int
    /// Arrays and objects inside one another (at most 64); a batch of confirmations is 7 deep.
    public var maxDepth: Int
    /// Creates limits; `JSONLimits.upload` is the one the hub applies to uploads.
    public init(maxValues: Int, maxDepth: Int) {
        self.maxValues = maxValues
        self.maxDepth = maxDepth
    }

    /// A draft at its path limit (200,000 points) is ~600,000 values: one such draft fits, with room.
    public static let upload = JSONLimits(maxValues: 2_000_000, maxDepth: 32)
}

/// Why a document was refused before decoding.
public enum JSONShapeProblem: Error, Equatable, CustomStringConvertible {
    case tooManyValues(limit: Int)
    case tooDeep(limit: Int)
    /// The same key twice in one object: decoders disagree on which one wins, so neither does.
    case duplicateKey(String)

    public var description: String {
        switch self {
        case .tooManyValues(let n): "more than \(n) JSON values"
        case .tooDeep(let n): "JSON nested more than \(n) levels deep"
        case .duplicateKey(let k): "the key \"\(k)\" appears twice in one object"
        }
    }
}

/// One pass over JSON text that tells strings from structure. It does not check
/// the syntax (the decoder does); it must only never be fooled by a string's content.
public enum JSONShape {
    /// Throws the first limit the document breaks, or a duplicate key; stops as soon as it knows.
    public static func check(_ data: Data, limits: JSONLimits) throws(JSONShapeProblem) {
        let problem: JSONShapeProblem? = data.withUnsafeBytes { raw in
            var scan = Scan(bytes: raw.bindMemory(to: UInt8.self), limits: limits)
            return scan.run()
        }
        if let problem { throw problem }
    }

    /// The distinct names of the keys of every object in `data`: what the hub compares a body's
    /// names with to tell which fields it did not store (`UploadParsing.ignoredFields`). One
    /// pass like `check`, for text already within its limits; a key with escapes is taken as
    /// written.
    public static func keyNames(_ data: Data) -> Set<String> {
        data.withUnsafeBytes { raw in
            let b = raw.bindMemory(to: UInt8.self)
            var names = Set<String>()
            // Open containers, true for an object.
            var objects: [Bool] = []
            var expectingKey = false
            var i = 0
            while i < b.count {
                let c = b[i]
                switch c {
                case 0x22:  // "
                    let end = stringEnd(b, from: i)
                    if expectingKey, objects.last == true {
                        names.insert(String(decoding: b[(i + 1)..<max(i + 1, end - 1)], as: UTF8.self))
                        expectingKey = false
                    }
                    i = end
                    continue
                case 0x7B, 0x5B:  // { [
                    objects.append(c == 0x7B)
                    expectingKey = c == 0x7B
                case 0x7D, 0x5D:  // } ]
                    if !objects.isEmpty { objects.removeLast() }
                    expectingKey = false
                case 0x2C:  // ,
                    expectingKey = objects.last == true
                default:  // : whitespace, numbers, literals
                    break
                }
                i += 1
            }
            return names
        }
    }

    /// The same text with every negative zero (`-0`, `-0.0`, `-0e5`) written `0`, so
    /// that `-0.0` and `0` give the same canonical bytes (they compare equal as numbers).
    public static func canonicalZeros(_ data: Data) -> Data {
        data.withUnsafeBytes { raw in
            let b = raw.bindMemory(to: UInt8.self)
            var out = Data(capacity: b.count)
            var i = 0, copied = 0
            while i < b.count {
                let c = b[i]
                if c == 0x22 {  // "
                    i = stringEnd(b, from: i)
                } else if c >= 0x30 && c <= 0x39 {
                    i = numberEnd(b, from: i)  // a whole positive number: its exponent's sign is not a token
                } else if c == 0x2D {  // -
                    let end = numberEnd(b, from: i + 1)
                    if isZero(b[(i + 1)..<end]) {
                        out.append(contentsOf: b[copied..<i])
                        out.append(contentsOf: b[(i + 1)..<end])
                        copied = end
                    }
                    i = end
                } else {
                    i += 1
                }
            }
            out.append(contentsOf: b[copied..<b.count])
            return out
        }
    }

    /// Index just past the string that opens at `start` (or the end of the text).
    static func stringEnd(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var i = start + 1
        while i < b.count {
            let c = b[i]
            if c == 0x5C { i += 2; continue }  // \\
            if c == 0x22 { return i + 1 }  // "
            i += 1
        }
        return b.count
    }

    static func numberEnd(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var i = start
        while i < b.count, isNumberByte(b[i]) { i += 1 }
        return i
    }

    /// Digits . e E + -
    static func isNumberByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || c == 0x2E || c == 0x65 || c == 0x45 || c == 0x2B || c == 0x2D
    }

    /// Digits all zero (before any exponent): the value is zero whatever the exponent.
    static func isZero(_ token: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        guard token.first == 0x30 else { return false }
        for c in token {
            if c == 0x65 || c == 0x45 { return true }  // e E
            if c != 0x30 && c != 0x2E { return false }  // 0 .
        }
        return true
    }

    private struct Scan {
        let bytes: UnsafeBufferPointer<UInt8>
        let limits: JSONLimits
        /// Open containers: how many, and one bit per level, set for an object. No
        /// allocation per array: a body is mostly small arrays (path points).
        var depth = 0
        var objectLevels: UInt64 = 0
        /// The keys seen so far in each open object, innermost last.
        var keys: [Set<[UInt8]>] = []
        var expectingKey = false
        var values = 0

        init(bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) {
            self.bytes = bytes
            self.limits = limits
        }

        var maxDepth: Int { min(limits.maxDepth, 64) }
        var insideObject: Bool { depth > 0 && objectLevels & (1 << UInt64(depth - 1)) != 0 }

        // Byte values as literals: this loop runs over every byte of up to 32 MiB, also in debug builds.
        mutating func run() -> JSONShapeProblem? {
            var i = 0
            while i < bytes.count {
                let c = bytes[i]
                switch c {
                case 0x22:  // "
                    let end = JSONShape.stringEnd(bytes, from: i)
                    if expectingKey, insideObject {
                        if let problem = addKey(i + 1..<max(i + 1, end - 1)) { return problem }
                        expectingKey = false
                    } else if let problem = countValue() {
                        return problem
                    }
                    i = end
                    continue
                case 0x7B, 0x5B:  // { [
                    if let problem = countValue() { return problem }
                    guard depth < maxDepth else { return .tooDeep(limit: maxDepth) }
                    if c == 0x7B {
                        objectLevels |= 1 << UInt64(depth)
                        keys.append([])
                    } else {
                        objectLevels &= ~(1 << UInt64(depth))
                    }
                    depth += 1
                    expectingKey = c == 0x7B
                case 0x7D, 0x5D:  // } ]
                    if depth > 0 {
                        if insideObject { keys.removeLast() }
                        depth -= 1
                    }
                    expectingKey = false
                case 0x2C:  // ,
                    expectingKey = insideObject
                case 0x3A, 0x20, 0x09, 0x0A, 0x0D:  // : and whitespace
                    break
                default:
                    // A number or a literal (digits, letters, . + -): one value, however long.
                    if let problem = countValue() { return problem }
                    while i + 1 < bytes.count, Self.isScalarByte(bytes[i + 1]) { i += 1 }
                }
                i += 1
            }
            return nil
        }

        static func isScalarByte(_ c: UInt8) -> Bool {
            (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || c == 0x2E || c == 0x2D || c == 0x2B
        }

        mutating func countValue() -> JSONShapeProblem? {
            values += 1
            return values > limits.maxValues ? .tooManyValues(limit: limits.maxValues) : nil
        }

        mutating func addKey(_ range: Range<Int>) -> JSONShapeProblem? {
            let raw = Array(bytes[range])
            // Keys with escapes are compared by what they mean ("\u0069d" is "id").
            let written = raw.contains(UInt8(ascii: "\\")) ? Self.unescaped(raw) ?? raw : raw
            // A pre-release name is the same key as today's (`WireKeys`): both in one object is a duplicate.
            let key = WireKeys.renamedBytes[written] ?? written
            if keys[keys.count - 1].insert(key).inserted { return nil }
            return .duplicateKey(String(decoding: key, as: UTF8.self))
        }

        static func unescaped(_ raw: [UInt8]) -> [UInt8]? {
            // nil: an invalid escape, which the caller refuses.
            (try? JSONDecoder().decode(String.self, from: Data([UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")]))).map { Array($0.utf8) }
        }
    }
}
