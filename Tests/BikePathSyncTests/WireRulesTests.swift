import BikePathAPI
import Foundation
import Testing

/// The pure wire rules the hub and the device share (BikePathAPI): JSON shape
/// limits, canonical zeros, token syntax.
@Suite(.ownThreads) struct WireRulesTests {
    static let roomy = JSONLimits(maxValues: 1000, maxDepth: 8)

    func shape(_ text: String, _ limits: JSONLimits = roomy) -> JSONShapeProblem? {
        do {
            try JSONShape.check(Data(text.utf8), limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test func duplicateKeysAreFoundWhateverTheirSpelling() {
        #expect(shape(#"{"id":"a","n":1}"#) == nil)
        #expect(shape(#"{"id":"a","id":"b"}"#) == .duplicateKey("id"))
        #expect(shape(#"{"id":"a","\u0069d":"b"}"#) == .duplicateKey("id"), "an escaped spelling is the same key")
        #expect(shape(#"{"a":{"k":1},"b":{"k":2},"c":[{"k":1},{"k":2}]}"#) == nil, "the same key in sibling objects is fine")
        #expect(shape(#"{"a":{"k":1,"k":2}}"#) == .duplicateKey("k"))
        #expect(shape(#"{"s":"\"k\":1,\"k\":2 } { [","t":"\\"}"#) == nil, "string contents are not structure")
        #expect(shape(#"{"a":[1,2,{"a":3}],"b":2}"#) == nil, "a key inside an array's object is not its parent's")
    }

    @Test func valuesAndDepthAreBounded() {
        #expect(shape("[0,0,0]", JSONLimits(maxValues: 4, maxDepth: 8)) == nil)
        #expect(shape("[0,0,0,0]", JSONLimits(maxValues: 4, maxDepth: 8)) == .tooManyValues(limit: 4))
        #expect(
            shape(#"{"a":"x","b":true,"c":null}"#, JSONLimits(maxValues: 3, maxDepth: 8)) == .tooManyValues(limit: 3),
            "the object and its three members are four values")
        #expect(shape(String(repeating: "[", count: 8) + String(repeating: "]", count: 8)) == nil)
        #expect(shape(String(repeating: "[", count: 9) + String(repeating: "]", count: 9)) == .tooDeep(limit: 8))
        #expect(
            shape("[1,2") == nil && shape("]]]}") == nil && shape(#""unterminated"#) == nil, "malformed text is the decoder's to refuse")
    }

    @Test func negativeZeroIsWrittenAsZero() throws {
        let text = #"{"a":-0,"b":"-0","c":[-0.0,-0e3,-0.5,10,1e-0,-10],"d":"x\"-0"}"#
        #expect(
            String(decoding: JSONShape.canonicalZeros(Data(text.utf8)), as: UTF8.self)
                == #"{"a":0,"b":"-0","c":[0.0,0e3,-0.5,10,1e-0,-10],"d":"x\"-0"}"#)
        #expect(try WireJSON.encode(WirePosition(lat: -0.0, lon: 0)) == WireJSON.encode(WirePosition(lat: 0, lon: 0)))
        #expect(try WireJSON.encode(WirePosition(lat: -0.5, lon: -3)) == Data(#"{"lat":-0.5,"lon":-3}"#.utf8))
    }

    @Test func tokensAreBearerTokensOfSaneLength() {
        #expect(TokenSyntax.problem("test-token-0123456789abcdef") == nil)
        #expect(TokenSyntax.problem("dGVzdC10b2tlbi0wMTIzNDU2Nzg5YWJj==") == nil, "base64 with padding")
        #expect(TokenSyntax.problem("secret-token\u{01}value-0123") == .badCharacter(position: 13, byte: 0x01))
        #expect(TokenSyntax.problem("secret token value 0123") == .badCharacter(position: 7, byte: 0x20))
        #expect(TokenSyntax.problem("abc=defghijklmnopqrs") == .badCharacter(position: 5, byte: UInt8(ascii: "d")), "= only as padding")
        #expect(TokenSyntax.problem("short-token") == .tooShort(length: 11))
        #expect(TokenSyntax.problem(String(repeating: "a", count: 5000)) == .tooLong(length: 5000))
        #expect(!"\(TokenSyntax.Problem.badCharacter(position: 13, byte: 1))".contains("secret"))
    }
}
