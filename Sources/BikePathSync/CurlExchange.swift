import CCurlOnDemand
import Dispatch
import Foundation
import Synchronization

/// One HTTP/1.1 request to the hub, whole, and its whole answer.
struct HTTPExchange: Sendable {
    var method: String
    var url: String
    /// "Name: value" lines; "Name:" removes one libcurl would add.
    var headers: [String]
    var body: [UInt8]
    var connectTimeoutSeconds: Double
    /// The whole exchange, head and body both ways (libcurl's CURLOPT_TIMEOUT).
    var timeoutSeconds: Double
    /// A private CA (PEM) trusted besides the system's roots.
    var caFile: String?
    /// An answer's body longer than this ends the exchange (a hub never sends one).
    var maxAnswerBytes: Int
}

/// What came back, with the exact bytes of both heads as libcurl counted them.
struct HTTPAnswer: Sendable {
    var status: Int
    /// Header names in lower case; the last of a repeated name.
    var headers: [String: String]
    var body: Data
    var requestHeaderBytes: Int
    var responseHeaderBytes: Int
}

/// Why no answer came, when the cause is not the deadline (`HubClient.DeadlinePassed`).
public enum HubTransportError: Error, CustomStringConvertible, Equatable {
    /// libcurl cannot be loaded (not installed, or too old): its loader's words.
    case libcurlUnavailable(String)
    /// libcurl's error code and message: no connection, TLS refused, connection dropped.
    case failed(code: Int, message: String)
    /// The answer's body passed the limit; it was not read further.
    case answerTooLarge(limit: Int)

    public var description: String {
        switch self {
        case .libcurlUnavailable(let why): "cannot talk to the hub: \(why)"
        case .failed(let code, let message): "\(message) (curl error \(code))"
        case .answerTooLarge(let limit): "the hub's answer is longer than \(limit / 1_048_576) MiB"
        }
    }
}

/// HTTP through libcurl, loaded on first use (Sources/CCurlOnDemand says why not
/// AsyncHTTPClient and swift-nio-ssl on the device). Each exchange runs libcurl's blocking
/// `curl_easy_perform` on a Dispatch thread, never on Swift's cooperative pool (2–4 threads
/// on a Pi). Easy handles are kept between exchanges: each holds its open connection and TLS
/// session, so a pass of many batches makes one handshake, as AsyncHTTPClient's pool did.
final class CurlSession: Sendable {
    /// An easy handle, used by one exchange at a time (it is in `idle` or owned by one call).
    private struct Handle: @unchecked Sendable { let raw: UnsafeMutableRawPointer }
    private let state = Mutex<(idle: [Handle], closed: Bool)>(([], false))

    /// Sends `exchange` and waits for the whole answer; cancelling the task ends it within
    /// libcurl's next progress call (about a second at most).
    /// - Throws: `HubClient.DeadlinePassed`, `HubTransportError`, or `CancellationError`.
    func perform(_ exchange: HTTPExchange) async throws -> HTTPAnswer {
        if let why = bikepath_curl_unavailable() { throw HubTransportError.libcurlUnavailable(String(cString: why)) }
        let handle = try take()
        let transfer = CurlTransfer(limit: exchange.maxAnswerBytes)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global(qos: .utility).async {
                    let result = Result { try transfer.run(exchange, on: handle.raw) }
                    self.giveBack(handle)
                    continuation.resume(with: result)
                }
            }
        } onCancel: {
            transfer.cancel()
        }
    }

    /// Frees the idle handles; a handle still in an exchange is freed when it ends.
    func close() {
        let idle = state.withLock { s in
            s.closed = true
            defer { s.idle = [] }
            return s.idle
        }
        for h in idle { bikepath_curl_easy_cleanup(h.raw) }
    }

    deinit { close() }

    private func take() throws -> Handle {
        if let h = state.withLock({ $0.idle.popLast() }) { return h }
        guard let raw = bikepath_curl_easy_init() else {
            throw HubTransportError.failed(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "curl_easy_init failed")
        }
        return Handle(raw: raw)
    }

    private func giveBack(_ h: Handle) {
        let keep = state.withLock { s in
            if !s.closed { s.idle.append(h) }
            return !s.closed
        }
        if !keep { bikepath_curl_easy_cleanup(h.raw) }
    }
}

/// One exchange's state, reached from libcurl's callbacks through an unretained pointer.
/// Everything but `cancelled` is touched only on the thread that runs `run`.
private final class CurlTransfer: @unchecked Sendable {
    let limit: Int
    private let cancelled = Atomic<Bool>(false)
    private var body: [UInt8] = []
    private var headers: [String: String] = [:]
    private var tooLarge = false
    private var requestHeaderBytes = 0
    private var responseHeaderBytes = 0
    private let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))

    init(limit: Int) {
        self.limit = limit
        errorText.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit { errorText.deallocate() }

    func cancel() { cancelled.store(true, ordering: .relaxed) }

    func run(_ x: HTTPExchange, on curl: UnsafeMutableRawPointer) throws -> HTTPAnswer {
        var list: UnsafeMutablePointer<curl_slist>?
        defer { bikepath_curl_slist_free_all(list) }
        // Reset when the exchange ends (before the list is freed), not when the next begins:
        // the handle's options point into this transfer (callback data, error buffer, body,
        // header list), freed after it, and an idle handle's cleanup (close()) may still call
        // back or write there. A reset keeps the open connection and the TLS session.
        defer { bikepath_curl_easy_reset(curl) }
        for line in x.headers { list = bikepath_curl_slist_append(list, line) }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let ms = { (seconds: Double) in Int((seconds * 1000).rounded(.up)) }
        var failure: CURLcode = CURLE_OK
        func set(_ code: CURLcode) { if failure == CURLE_OK { failure = code } }
        // libcurl copies every string option, so the temporary C strings suffice.
        set(bikepath_curl_setopt_pointer(curl, CURLOPT_URL, x.url))
        set(bikepath_curl_setopt_pointer(curl, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(bikepath_curl_setopt_pointer(curl, CURLOPT_CUSTOMREQUEST, x.method))
        set(bikepath_curl_setopt_pointer(curl, CURLOPT_HTTPHEADER, list))
        set(bikepath_curl_setopt_long(curl, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1)))
        // No proxy from the environment (`http_proxy`, `https_proxy`): the hub is reached as
        // configured, as before libcurl; a proxy would be a configuration key of its own.
        set(bikepath_curl_setopt_pointer(curl, CURLOPT_PROXY, ""))
        // No signals from a thread (libcurl's DNS timeout would raise SIGALRM otherwise).
        set(bikepath_curl_setopt_long(curl, CURLOPT_NOSIGNAL, 1))
        set(bikepath_curl_setopt_long(curl, CURLOPT_FOLLOWLOCATION, 0))
        set(bikepath_curl_setopt_long(curl, CURLOPT_CONNECTTIMEOUT_MS, ms(x.connectTimeoutSeconds)))
        set(bikepath_curl_setopt_long(curl, CURLOPT_TIMEOUT_MS, ms(x.timeoutSeconds)))
        set(bikepath_curl_setopt_long(curl, CURLOPT_SSL_VERIFYPEER, 1))
        set(bikepath_curl_setopt_long(curl, CURLOPT_SSL_VERIFYHOST, 2))
        if let ca = x.caFile {
            // CAINFO replaces the default bundle file; the hashed directory of the system's
            // roots (Debian's ca-certificates) stays trusted through CAPATH.
            set(bikepath_curl_setopt_pointer(curl, CURLOPT_CAINFO, ca))
            set(bikepath_curl_setopt_pointer(curl, CURLOPT_CAPATH, "/etc/ssl/certs"))
        }
        set(bikepath_curl_setopt_pointer(curl, CURLOPT_ERRORBUFFER, errorText))
        set(bikepath_curl_setopt_write(curl, CURLOPT_WRITEFUNCTION, Self.receiveBody))
        set(bikepath_curl_setopt_pointer(curl, CURLOPT_WRITEDATA, me))
        set(bikepath_curl_setopt_write(curl, CURLOPT_HEADERFUNCTION, Self.receiveHeader))
        set(bikepath_curl_setopt_pointer(curl, CURLOPT_HEADERDATA, me))
        // The request's head as sent, counted from libcurl's debug stream (CURLINFO_REQUEST_SIZE
        // counts a small body sent with the head as well, 34 bytes more here for an empty batch).
        set(bikepath_curl_setopt_long(curl, CURLOPT_VERBOSE, 1))
        set(bikepath_curl_setopt_debug(curl, CURLOPT_DEBUGFUNCTION, Self.debug))
        set(bikepath_curl_setopt_pointer(curl, CURLOPT_DEBUGDATA, me))
        set(bikepath_curl_setopt_long(curl, CURLOPT_NOPROGRESS, 0))
        set(bikepath_curl_setopt_xferinfo(curl, CURLOPT_XFERINFOFUNCTION, Self.progress))
        set(bikepath_curl_setopt_pointer(curl, CURLOPT_XFERINFODATA, me))
        guard failure == CURLE_OK else {
            throw HubTransportError.failed(code: Int(failure.rawValue), message: "libcurl refused an option: \(Self.text(failure))")
        }
        let code = x.body.withUnsafeBytes { bytes -> CURLcode in
            // A body of 0 bytes still needs a pointer: NULL would make libcurl call a read callback.
            let fields = bytes.baseAddress ?? UnsafeRawPointer(errorText)
            _ = bikepath_curl_setopt_pointer(curl, CURLOPT_POSTFIELDS, fields)
            _ = bikepath_curl_setopt_offset(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
            return bikepath_curl_easy_perform(curl)
        }
        var connectMicroseconds: curl_off_t = 0
        _ = bikepath_curl_getinfo_offset(curl, CURLINFO_CONNECT_TIME_T, &connectMicroseconds)
        switch code {
        case CURLE_OK: break
        case CURLE_ABORTED_BY_CALLBACK where cancelled.load(ordering: .relaxed): throw CancellationError()
        case CURLE_WRITE_ERROR where tooLarge: throw HubTransportError.answerTooLarge(limit: limit)
        // Connected and then out of time: the whole-exchange deadline. A connect that timed
        // out has no connect time, and says so in libcurl's words.
        case CURLE_OPERATION_TIMEDOUT where connectMicroseconds > 0: throw HubClient.DeadlinePassed(seconds: x.timeoutSeconds)
        default:
            let detail = String(cString: errorText)
            throw HubTransportError.failed(code: Int(code.rawValue), message: detail.isEmpty ? Self.text(code) : detail)
        }
        var status = 0
        _ = bikepath_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status)
        return HTTPAnswer(
            status: status, headers: headers, body: Data(body), requestHeaderBytes: requestHeaderBytes,
            responseHeaderBytes: responseHeaderBytes)
    }

    private static func text(_ code: CURLcode) -> String { String(cString: bikepath_curl_easy_strerror(code)) }

    private static func of(_ user: UnsafeMutableRawPointer?) -> CurlTransfer {
        Unmanaged<CurlTransfer>.fromOpaque(user!).takeUnretainedValue()
    }

    /// Returning less than was given ends the exchange (CURLE_WRITE_ERROR).
    private static let receiveBody: curl_write_callback = { data, size, count, user in
        let t = of(user)
        let n = size * count
        guard t.body.count + n <= t.limit else {
            t.tooLarge = true
            return 0
        }
        if n > 0, let data { t.body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: n)) }
        return n
    }

    /// One header line at a time, the status line first; a new status line (an interim 1xx
    /// answer) starts the head again.
    private static let receiveHeader: curl_write_callback = { data, size, count, user in
        let t = of(user)
        let n = size * count
        guard n > 0, let data else { return n }
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: n), as: UTF8.self)
        t.responseHeaderBytes += n
        if line.hasPrefix("HTTP/") {
            t.headers = [:]
        } else if let colon = line.firstIndex(of: ":") {
            let name = line[..<colon].lowercased()
            t.headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return n
    }

    /// libcurl's verbose stream: only the request's head is kept (its size), nothing is logged.
    private static let debug: curl_debug_callback = { _, type, _, size, user in
        if type == CURLINFO_HEADER_OUT { of(user).requestHeaderBytes += size }
        return 0
    }

    /// Called about once a second and on progress: non-zero aborts (CURLE_ABORTED_BY_CALLBACK).
    private static let progress: curl_xferinfo_callback = { user, _, _, _, _ in
        of(user).cancelled.load(ordering: .relaxed) ? 1 : 0
    }
}
