import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
#if canImport(Glibc)
    import Glibc
#endif

/// The W3C WebDriver protocol spoken to Debian's chromedriver, which drives a
/// real headless chromium: plain JSON over HTTP, no Selenium. Shared by the review
/// page's and the hub map page's browser tests.
public final class WebDriver: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let driver: ChildProcess
    private let log: URL
    public private(set) var base = ""
    public private(set) var session = ""

    /// Starts chromedriver on a port of its own choosing (`--port=0`; `start` reads it from
    /// the log): a port found free here and handed over could be taken by another test's
    /// server before chromedriver binds it, and chromedriver then exits. The caller stops
    /// it by pid through `quit`.
    public init(log: URL) throws {
        self.log = log
        driver = try ChildProcess("/usr/bin/chromedriver", ["--port=0"], output: log)
    }

    /// A new browser: phone-sized (390 × 844, a common phone's viewport), headless, no sandbox (the tests run as root).
    public func start() async throws {
        // chromedriver takes a moment to listen; 60 s because CI runs 670 tests on 2 cores
        // beside a compiler, and one start once took over 20 s there.
        let deadline = Date().addingTimeInterval(60)
        while true {
            let written = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            if base.isEmpty, let port = Self.listeningPort(in: written) { base = "http://127.0.0.1:\(port)" }
            if !base.isEmpty, (try? await call(.GET, "/status")) != nil { break }
            if let code = driver.exitedStatus() {
                throw Failure(description: "chromedriver exited (\(code)) before it answered: \(written)")
            }
            guard Date() < deadline else {
                throw Failure(description: "chromedriver did not answer within 60 s (\(base.isEmpty ? "no port yet" : base)): \(written)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let capabilities: [String: Any] = [
            "capabilities": [
                "alwaysMatch": [
                    "browserName": "chrome",
                    "goog:chromeOptions": [
                        "binary": "/usr/bin/chromium",
                        "args": [
                            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                            "--window-size=390,844", "--lang=en",
                        ],
                    ],
                ]
            ]
        ]
        let value = try await call(.POST, "/session", capabilities)
        guard let id = (value as? [String: Any])?["sessionId"] as? String else { throw Failure(description: "no session: \(value)") }
        session = id
        // An element looked up right after a click may belong to the page that is
        // still loading (a form post and its redirect, on a loaded 2-core machine):
        // lookups wait up to 15 s for it, as a person would.
        _ = try await call(.POST, "/session/\(id)/timeouts", ["implicit": 15_000])
    }

    public func open(_ url: String) async throws { _ = try await call(.POST, "/session/\(session)/url", ["url": url]) }

    public func element(_ css: String) async throws -> String {
        let value = try await call(.POST, "/session/\(session)/element", ["using": "css selector", "value": css])
        guard let id = (value as? [String: Any])?.values.first as? String else { throw Failure(description: "no element \(css)") }
        return id
    }

    public func click(_ css: String) async throws {
        _ = try await call(.POST, "/session/\(session)/element/\(try await element(css))/click", [String: Any]())
    }

    /// Clicks something that loads a new page, and returns once the old page is gone: a
    /// lookup right after a plain click can find the old page's element of the same id
    /// (its stale "to review" state, or a node chromium already detached).
    public func clickToLoad(_ css: String) async throws {
        try await loading { try await self.click(css) }
    }

    /// Runs `act`, then waits (up to 15 s) until the page it was on is replaced.
    public func loading(_ act: () async throws -> Void) async throws {
        let old = try await element("html")
        try await act()
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline, (try? await call(.GET, "/session/\(session)/element/\(old)/name")) != nil {
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    public func type(_ css: String, _ text: String) async throws {
        _ = try await call(.POST, "/session/\(session)/element/\(try await element(css))/value", ["text": text])
    }

    public func text(_ css: String) async throws -> String {
        try await call(.GET, "/session/\(session)/element/\(try await element(css))/text") as? String ?? ""
    }

    public func currentURL() async throws -> String { try await call(.GET, "/session/\(session)/url") as? String ?? "" }

    /// A new tab; returns its handle.
    public func newTab() async throws -> String {
        let value = try await call(.POST, "/session/\(session)/window/new", ["type": "tab"])
        return (value as? [String: Any])?["handle"] as? String ?? ""
    }

    public func windowHandle() async throws -> String { try await call(.GET, "/session/\(session)/window") as? String ?? "" }

    public func switchTo(_ handle: String) async throws { _ = try await call(.POST, "/session/\(session)/window", ["handle": handle]) }

    /// Runs `script` (a function body) in the page and returns its value (W3C "Execute Script").
    public func execute(_ script: String) async throws -> Any {
        try await call(.POST, "/session/\(session)/execute/sync", ["script": script, "args": [Any]()])
    }

    /// Makes the page a phone's: `width` × `height` CSS px, mobile (the viewport meta tag
    /// counts), through chromedriver's DevTools passthrough. Headless chromium keeps a
    /// window at least 500 px wide, so `--window-size` alone cannot give 390 or 360.
    public func emulatePhone(width: Int, height: Int) async throws {
        _ = try await call(
            .POST, "/session/\(session)/goog/cdp/execute",
            [
                "cmd": "Emulation.setDeviceMetricsOverride",
                "params": ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": true] as [String: Any],
            ])
    }

    /// A finger's tap at (`x`, `y`) CSS px from the element's top left corner (W3C pointer
    /// actions, touch): offsets are from the element's centre, so the middle is subtracted.
    /// A tap that loads a page goes inside `loading`.
    public func tap(_ css: String, x: Double, y: Double) async throws {
        let id = try await element(css)
        let rect = try await call(.GET, "/session/\(session)/element/\(id)/rect") as? [String: Any] ?? [:]
        let width = (rect["width"] as? Double) ?? 0, height = (rect["height"] as? Double) ?? 0
        let origin: [String: Any] = ["element-6066-11e4-a52e-4f735466cecf": id]
        let actions: [String: Any] = [
            "actions": [
                [
                    "type": "pointer", "id": "finger", "parameters": ["pointerType": "touch"],
                    "actions": [
                        [
                            "type": "pointerMove", "duration": 0, "origin": origin,
                            "x": Int((x - width / 2).rounded()), "y": Int((y - height / 2).rounded()),
                        ],
                        ["type": "pointerDown", "button": 0], ["type": "pointerUp", "button": 0],
                    ],
                ] as [String: Any]
            ]
        ]
        _ = try await call(.POST, "/session/\(session)/actions", actions)
    }

    public func screenshot(to path: String) async throws {
        guard let base64 = try await call(.GET, "/session/\(session)/screenshot") as? String, let png = Data(base64Encoded: base64) else {
            throw Failure(description: "no screenshot")
        }
        try png.write(to: URL(fileURLWithPath: path))
    }

    /// Closes the browser, then stops chromedriver by its pid.
    public func quit() async {
        if !session.isEmpty { _ = try? await call(.DELETE, "/session/\(session)") }
        driver.stop(signal: SIGTERM)
    }

    private func call(_ method: HTTPMethod, _ path: String, _ body: [String: Any]? = nil) async throws -> Any {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        request.headers.add(name: "Content-Type", value: "application/json")
        if let body { request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body))) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let data = try await response.body.collect(upTo: 32 << 20)
        let json = try JSONSerialization.jsonObject(with: Data(data.readableBytesView), options: [.fragmentsAllowed]) as? [String: Any]
        guard response.status == .ok else { throw Failure(description: "\(method) \(path): \(response.status) \(json?["value"] ?? "")") }
        return json?["value"] ?? NSNull()
    }

    /// The port in chromedriver's "ChromeDriver was started successfully on port 46873." line.
    static func listeningPort(in log: String) -> Int? {
        guard let line = log.split(separator: "\n").first(where: { $0.contains("started successfully on port ") }) else { return nil }
        return Int(line.split(separator: " ").last?.trimmingCharacters(in: CharacterSet(charactersIn: ".")) ?? "")
    }

    /// A port nobody listens on now: bound to 0, read back, closed.
    public static func freePort() throws -> Int {
        let (fd, port) = try boundSocket(host: "127.0.0.1")
        close(fd)
        return port
    }

    /// A TCP socket bound to a free port of `host` (bound to 0, read back); the caller closes it.
    public static func boundSocket(host: String) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr(host)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else {
            close(fd)
            throw Failure(description: "cannot bind a free port on \(host)")
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
