import BikePathTestSupport
import NIOCore
import PostgresNIO
import Testing

@testable import BikePathHub

/// `PostgresNumbers` binds the bytes postgres-nio's own array encoding writes, for any numbers:
/// empty arrays, negatives, extremes, NaN and infinities.
@Suite(.ownThreads) struct PostgresNumbersTests {
    static func bytes(_ value: some PostgresNonThrowingEncodable) -> [UInt8] {
        var buffer = ByteBuffer()
        value.encode(into: &buffer, context: .default)
        return Array(buffer.readableBytesView)
    }

    @Test func integersAreBoundAsPostgresNIOBindsThem() {
        var g = SystemRandomNumberGenerator()
        let edges = [0, 1, -1, Int.max, Int.min, Int(Int32.max) + 1]
        for count in [0, 1, 2, 17, 1_000] {
            let values = edges.prefix(count) + (0..<max(0, count - edges.count)).map { _ in Int.random(in: .min ... .max, using: &g) }
            let array = Array(values)
            #expect(Self.bytes(PostgresNumbers(array)) == Self.bytes(array), "\(count) integers")
            #expect(Self.bytes(PostgresNumbers(array.map(Int64.init))) == Self.bytes(array.map(Int64.init)))
        }
        #expect(PostgresNumbers<Int>.psqlType == [Int].psqlType)
    }

    @Test func doublesAreBoundAsPostgresNIOBindsThem() {
        let values =
            [0.0, -0.0, 1.5, -52.123456789, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity, -.infinity]
            + (0..<500).map { _ in Double.random(in: -1e9...1e9) }
        #expect(Self.bytes(PostgresNumbers(values)) == Self.bytes(values))
        #expect(Self.bytes(PostgresNumbers([Double]())) == Self.bytes([Double]()))
        #expect(Self.bytes(PostgresNumbers([Double.nan])) == Self.bytes([Double.nan]))
        #expect(PostgresNumbers<Double>.psqlType == [Double].psqlType)
    }
}
