import BikePathAPI
import Foundation

/// Wire JSON as the pre-release builds wrote it (camelCase): today's keys named back by
/// `WireKeys.renamed` (the one table of the old names), keys sorted by those names and
/// `-0` written `0`, as their canonical form was. For tests of what a device or a hub
/// still holds from before.
public enum PreReleaseJSON {
    /// `value` as a pre-release build encoded it.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        let back = Dictionary(uniqueKeysWithValues: WireKeys.renamed.map { ($0.value, $0.key) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .custom { path in
            let key = path[path.count - 1]
            return back[key.stringValue].map(Key.init) ?? key
        }
        return JSONShape.canonicalZeros(try encoder.encode(value))
    }

    /// A record's body in today's keys (a stored body, an upload) as a pre-release build wrote it.
    public static func camelCase(_ kind: RecordKind, _ body: Data) throws -> Data {
        switch try RecordBody.decode(kind: kind, from: body) {
        case .sos(let v): try encode(v)
        case .confirmation(let v): try encode(v)
        case .draft(let v): try encode(v)
        case .trip(let v): try encode(v)
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
