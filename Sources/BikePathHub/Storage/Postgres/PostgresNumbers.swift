import NIOCore
import PostgresNIO

/// A PostgreSQL array of numbers (`int8[]`, `float8[]`) bound in its binary form, written in
/// one pass. postgres-nio's generic array encoding (each element through the generic path,
/// its length patched in after it, with exclusivity checks) was an eighth of the map
/// maintainer's CPU: a batch of 64 rides binds some 300,000 numbers (docs/performance.md,
/// "Load: the map's CPU"). The bytes are the same as postgres-nio's for the same array.
struct PostgresNumbers<Number: PostgresPackable>: PostgresNonThrowingEncodable {
    var values: [Number]

    init(_ values: [Number]) { self.values = values }

    static var psqlType: PostgresDataType { Number.arrayType }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        // Dimensions (0 when empty), no NULLs, the element type; then the length and lower bound.
        buffer.writeInteger(values.isEmpty ? 0 : 1, as: UInt32.self)
        buffer.writeInteger(0, as: Int32.self)
        buffer.writeInteger(Number.elementType.rawValue)
        guard !values.isEmpty else { return }
        buffer.writeInteger(Int32(values.count))
        buffer.writeInteger(1, as: Int32.self)
        // Each element: its byte count (8), then its big-endian bits.
        let stride = 4 + 8
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: values.count * stride) { out in
            var offset = 0
            for value in values {
                out.storeBytes(of: UInt32(8).bigEndian, toByteOffset: offset, as: UInt32.self)
                out.storeBytes(of: value.bits.bigEndian, toByteOffset: offset + 4, as: UInt64.self)
                offset += stride
            }
            return offset
        }
    }
}

/// A number `PostgresNumbers` binds: 8 bytes as PostgreSQL's binary format has them.
protocol PostgresPackable: Sendable {
    var bits: UInt64 { get }
    static var elementType: PostgresDataType { get }
    static var arrayType: PostgresDataType { get }
}

extension Int: PostgresPackable {
    var bits: UInt64 { UInt64(bitPattern: Int64(self)) }
    static var elementType: PostgresDataType { .int8 }
    static var arrayType: PostgresDataType { .int8Array }
}

extension Int64: PostgresPackable {
    var bits: UInt64 { UInt64(bitPattern: self) }
    static var elementType: PostgresDataType { .int8 }
    static var arrayType: PostgresDataType { .int8Array }
}

extension Double: PostgresPackable {
    var bits: UInt64 { bitPattern }
    static var elementType: PostgresDataType { .float8 }
    static var arrayType: PostgresDataType { .float8Array }
}
