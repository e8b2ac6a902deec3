import BikePathAPI
import BikePathTestSupport
import Foundation
import Testing

/// A draft's path is decoded by hand (`DraftUpload.path`, twice as fast): it must take what
/// `[[Double]]`'s own decoding takes and refuse what it refuses, with the same coding path.
@Suite(.ownThreads) struct PathDecodingTests {
    struct GenericPath: Decodable { var path: [[Double]] }

    static func draft(path: String) throws -> Data {
        var draft = Fixtures.confirmation(id: "D-1").draft
        draft.path = [[11.5, 22.5]]
        let json = String(decoding: try WireJSON.encode(draft), as: UTF8.self)
        try #require(json.contains("[[11.5,22.5]]"), "\(json)")
        return Data(json.replacingOccurrences(of: "[[11.5,22.5]]", with: path).utf8)
    }

    static func outcome<T: Decodable>(_ type: T.Type, _ data: Data) -> String {
        do {
            _ = try JSONDecoder().decode(type, from: data)
            return "decoded"
        } catch DecodingError.typeMismatch(_, let c) {
            return "type mismatch at \(c.codingPath.map(\.stringValue))"
        } catch DecodingError.valueNotFound(_, let c) {
            return "null at \(c.codingPath.map(\.stringValue))"
        } catch DecodingError.dataCorrupted(let c) {
            return "corrupted at \(c.codingPath.map(\.stringValue))"
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: [
        "[[52.5,13.4],[52.6,13.5]]", "[]", "[[52.5,13.4,7]]", "[[]]", #"[[52.5,"x"]]"#, "[[52.5,null]]", "[null]", "[52.5]",
        "{}", "null", #"[[52.5,13.4],"p"]"#, "[[1e400,0]]",
    ])
    func theHandDecodedPathAgreesWithTheGenericOne(_ path: String) throws {
        let data = try Self.draft(path: path)
        let generic = Self.outcome(GenericPath.self, data)
        let hand = Self.outcome(DraftUpload.self, data)
        #expect(hand == generic, "\(path)")
        if generic == "decoded" {
            let decoded = try JSONDecoder().decode(DraftUpload.self, from: data)
            #expect(decoded.path == (try JSONDecoder().decode(GenericPath.self, from: data)).path)
        }
    }
}
