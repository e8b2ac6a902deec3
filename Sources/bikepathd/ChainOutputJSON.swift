import BikePathCore
import Foundation

/// One chain output as one line of JSON: what `replay --json` prints and
/// `record --outputs` writes, so the two can be compared byte for byte.
enum ChainOutputJSON {
    static func line(_ output: ChainOutput) -> String {
        switch output {
        case .activity(let t, let state):
            return "{\"output\":\"activity\",\"state\":\"\(state.rawValue)\",\"t\":\(t.seconds)}"
        case .tripStarted(let t, let utc):
            let time = utc.map { ",\"utc\":\"\(iso8601($0))\"" } ?? ""
            return "{\"output\":\"tripStarted\",\"t\":\(t.seconds)\(time)}"
        case .trackPoint(let p): return encoded("trackPoint", p)
        case .obstacle(let e): return encoded("obstacle", e)
        case .roadQuality(let s): return encoded("roadQuality", s)
        case .tripEnded(let trip): return encoded("tripEnded", trip)
        case .sos(let e): return encoded("sos", e)
        }
    }

    private static func encoded<T: Encodable>(_ kind: String, _ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "{}"
        return "{\"output\":\"\(kind)\",\"value\":\(body)}"
    }

    static func iso8601(_ utc: UTCTime) -> String {
        var bytes: [UInt8] = []
        FixJSON.appendISO8601(utc, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
