import BikePathAPI
import CompressNIO
import Foundation
import Hummingbird
import NIOCore

/// Why a request body was refused before any record in it was looked at.
enum BodyProblem: Error, Equatable {
    case unsupportedEncoding(String)
    case tooLarge
    case inflatesTooLarge
    case badGzip(String)
    case shape(JSONShapeProblem)

    /// The whole request's answer (docs/api.yaml, `Error`).
    var answer: (status: HTTPResponse.Status, code: String, message: String) {
        switch self {
        case .unsupportedEncoding(let e):
            (.unsupportedMediaType, "unsupported-encoding", "Content-Encoding \(e) is not supported; use gzip or none")
        case .tooLarge: (.contentTooLarge, "too-large", "bodies are limited to \(HubLimits.maxBody) bytes")
        case .inflatesTooLarge: (.contentTooLarge, "too-large", "the gzip body inflates past \(HubLimits.maxInflated) bytes")
        case .badGzip(let why): (.badRequest, "bad-gzip", "the gzip body is \(why)")
        case .shape(.tooManyValues(let n)): (.contentTooLarge, "too-many-values", "a body holds at most \(n) JSON values")
        case .shape(let problem): (.badRequest, "invalid-json", "\(problem)")
        }
    }
}

/// How the body is encoded (`Content-Encoding`), known before a byte of it is read.
enum BodyEncoding: Sendable {
    case identity, gzip

    init(header: String?) throws(BodyProblem) {
        switch header?.trimmingCharacters(in: .whitespaces).lowercased() {
        case nil, "identity": self = .identity
        case "gzip": self = .gzip
        case let other?: throw .unsupportedEncoding(other)
        }
    }
}

/// A request body turned into JSON text that is safe to hand to `JSONDecoder`:
/// inflated within its limit, one complete gzip member, shape within `HubLimits.json`.
/// CPU-bound: runs on `DecodeWorkers`, never on the request handlers' pool.
enum RequestBody {
    static func json(_ raw: ByteBuffer, encoding: BodyEncoding) throws(BodyProblem) -> Data {
        let text: Data
        switch encoding {
        case .identity: text = Data(raw.readableBytesView)
        case .gzip: text = Data(try inflate(raw, limit: HubLimits.maxInflated).readableBytesView)
        }
        do {
            try JSONShape.check(text, limits: HubLimits.json)
        } catch {
            throw .shape(error)
        }
        return text
    }

    /// Inflates exactly one gzip member, whose trailer (CRC-32 and length, checked
    /// by zlib) must end the body: a missing trailer or bytes after it are refused.
    static func inflate(_ compressed: ByteBuffer, limit: Int) throws(BodyProblem) -> ByteBuffer {
        // A sentinel byte after the body: zlib stops before it only if the member ended
        // there; a truncated member swallows it as data.
        var input = compressed
        input.writeInteger(UInt8(0))
        let zlib: ZlibDecompressor
        do { zlib = try ZlibDecompressor(algorithm: .gzip) } catch { throw .badGzip("not decodable here: \(error)") }
        var output = ByteBuffer()
        var chunk = ByteBufferAllocator().buffer(capacity: 64 * 1024)
        while true {
            var outputFull = false
            do {
                try zlib.inflate(from: &input, to: &chunk)
            } catch let e as CompressNIOError where e == .bufferOverflow {
                outputFull = true
            } catch let e as CompressNIOError where e == .inputBufferOverflow {
                throw .badGzip("truncated (no gzip trailer)")
            } catch {
                throw .badGzip("corrupt (\(error))")
            }
            guard output.readableBytes + chunk.readableBytes <= limit else { throw .inflatesTooLarge }
            output.writeBuffer(&chunk)
            chunk.clear()
            if !outputFull { break }
        }
        switch input.readableBytes {
        case 1: return output
        case 0: throw .badGzip("truncated (no gzip trailer)")
        default: throw .badGzip("followed by \(input.readableBytes - 1) bytes after its trailer")
        }
    }
}
