import Foundation
import HTTPTypes
import Hummingbird
#if canImport(Glibc)
    import Glibc
#endif

/// One address of a network interface of this machine (getifaddrs).
public struct InterfaceAddress: Sendable, Equatable {
    public var interface: String
    /// Numeric, without brackets or zone (`192.168.4.1`, `fd00::1`).
    public var address: String
    public var isIPv6: Bool
    public var isLoopback: Bool
    /// fe80::/10: useless in a phone's address bar (it needs a zone).
    public var isLinkLocal: Bool

    public init(interface: String, address: String, isIPv6: Bool, isLoopback: Bool, isLinkLocal: Bool = false) {
        self.interface = interface
        self.address = address
        self.isIPv6 = isIPv6
        self.isLoopback = isLoopback
        self.isLinkLocal = isLinkLocal
    }

    /// A C string in a fixed buffer, up to its NUL.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The addresses of the interfaces that are up, as the kernel lists them; empty when getifaddrs fails.
    public static func current() -> [InterfaceAddress] {
        var head: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&head) == 0, let first = head else { return [] }
        defer { freeifaddrs(head) }
        var out: [InterfaceAddress] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(truncatingIfNeeded: entry.pointee.ifa_flags)
            guard let sa = entry.pointee.ifa_addr, flags & Int32(IFF_UP) != 0 else { continue }
            let family = Int32(sa.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(sa, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let text = Self.text(host).split(separator: "%", maxSplits: 1).first.map(String.init) ?? ""
            out.append(
                InterfaceAddress(
                    interface: String(cString: entry.pointee.ifa_name), address: text, isIPv6: family == AF_INET6,
                    isLoopback: flags & Int32(IFF_LOOPBACK) != 0, isLinkLocal: text.lowercased().hasPrefix("fe80:")))
        }
        return out
    }
}

/// The host names a request to the review page may carry in its `Host` header.
///
/// Without this check a DNS-rebinding page (`evil.example` re-pointed at the Pi's
/// address) reaches `/pair` from the rider's own browser and can burn the code's 5
/// tries. Such a request carries the attacker's name in `Host`, so only
/// the names the rider could have typed are accepted: the listen address; with a
/// loopback address also `localhost`; bound to every interface (`0.0.0.0`, `::`)
/// every interface's address, `localhost`, the machine's host name and its mDNS
/// name (`NAME.local`). The port is not compared: the socket that accepted the
/// request already fixes it. Interfaces are read again for each request that names
/// neither the listen address nor `localhost` (getifaddrs, microseconds), so an address
/// the Wi-Fi hands out after the daemon started is accepted.
public struct ReviewHosts: Sendable {
    let listen: ReviewAddress
    let interfaces: @Sendable () -> [InterfaceAddress]
    let hostName: @Sendable () -> String?

    public init(
        listen: ReviewAddress, interfaces: @escaping @Sendable () -> [InterfaceAddress] = InterfaceAddress.current,
        hostName: @escaping @Sendable () -> String? = ReviewHosts.machineHostName
    ) {
        self.listen = listen
        self.interfaces = interfaces
        self.hostName = hostName
    }

    /// gethostname(2), or nil.
    public static func machineHostName() -> String? {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count) == 0 else { return nil }
        let text = InterfaceAddress.text(name)
        return text.isEmpty ? nil : text
    }

    /// The host part of a `Host` value, lower-cased, without port, brackets or a final dot.
    static func hostPart(_ authority: String) -> String {
        var host = authority.trimmingCharacters(in: .whitespaces).lowercased()
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            host = String(host[..<colon])
        }
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }

    /// Whether a request naming `authority` (its `Host`) is meant for this page.
    public func accepts(_ authority: String?) -> Bool {
        guard let authority, !authority.isEmpty else { return false }
        let host = Self.hostPart(authority)
        let bound = listen.host.lowercased()
        if host == bound { return true }
        if host == "localhost" { return listen.isLoopback || listen.isWildcard }
        guard listen.isWildcard else { return false }
        if let name = hostName()?.lowercased(), host == name || host == name + ".local" { return true }
        return interfaces().contains { $0.address.lowercased() == host && ($0.isIPv6 ? bound == "::" : true) }
    }
}

extension ReviewAddress {
    /// Bound to every interface (`0.0.0.0` or `::`).
    public var isWildcard: Bool { host == "0.0.0.0" || host == "::" }

    /// The URLs to tell the rider, served on `port`: the listen address itself, or bound to
    /// every interface, each non-loopback address a phone can open (`http://0.0.0.0:18083`
    /// opens nothing on a phone); loopback when the machine has no other address.
    public func phoneURLs(port: Int, interfaces: [InterfaceAddress]) -> [String] {
        guard isWildcard else { return ["http://\(ReviewAddress(host: host, port: port))"] }
        let usable = interfaces.filter { !$0.isLoopback && !$0.isLinkLocal && ($0.isIPv6 ? host == "::" : true) }
        let urls = usable.map { "http://\(ReviewAddress(host: $0.address, port: port))" }
        var seen = Set<String>()
        let unique = urls.filter { seen.insert($0).inserted }
        return unique.isEmpty ? ["http://\(ReviewAddress(host: "127.0.0.1", port: port))"] : unique
    }
}

/// Refuses a request whose `Host` is not one of `ReviewHosts` with 421 and a sentence
/// that says what to open instead; a request with no `Host` with 400. Nothing behind it runs.
struct HostCheckMiddleware<Context: RequestContext>: RouterMiddleware {
    let hosts: ReviewHosts

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let authority = request.head.authority, !authority.isEmpty else {
            return ReviewRoutes.response(
                .badRequest, type: "text/plain; charset=utf-8",
                "This request names no host (no Host header); the review page answers only requests that do.\n")
        }
        guard hosts.accepts(authority) else {
            // Read the (short) form before answering: closing a socket with request bytes
            // still unread makes the kernel reset it, and the client may lose the 421.
            _ = try? await request.body.collect(upTo: ReviewRoutes.maxFormBytes)
            return ReviewRoutes.response(
                .misdirectedRequest, type: "text/plain; charset=utf-8",
                """
                This is the review page of a bike computer, and "\(authority)" is not one of its addresses: refused, nothing \
                was changed. Open the address bikepathd printed when it started (or http://localhost:PORT on the Pi itself).

                """)
        }
        return try await next(request, context)
    }
}
