import BikePathCore
import BikePathStore
import BikePathTestSupport
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import Testing
@testable import BikePathReview
#if canImport(Glibc)
    import Glibc
#endif

/// The page answers only for this machine and says where a phone finds it: the Host check
/// (421 for another name, before any route or pairing try), the startup's URLs, and a
/// port in use said in one sentence.
@Suite(.ownThreads) struct HostAndStartupTests {
    let wildcard = ReviewHosts(
        listen: ReviewAddress(host: "0.0.0.0", port: 18083),
        interfaces: {
            [
                InterfaceAddress(interface: "lo", address: "127.0.0.1", isIPv6: false, isLoopback: true),
                InterfaceAddress(interface: "wlan0", address: "192.168.4.1", isIPv6: false, isLoopback: false),
                InterfaceAddress(interface: "wlan0", address: "fe80::1", isIPv6: true, isLoopback: false, isLinkLocal: true),
            ]
        },
        hostName: { "BikePi" })

    @Test func hostMustNameThisMachine() {
        let loopback = ReviewHosts(listen: ReviewAddress(host: "127.0.0.1", port: 8080), interfaces: { [] }, hostName: { "bikepi" })
        for ok in ["127.0.0.1:8080", "127.0.0.1", "localhost:8080", "LOCALHOST", "localhost.:8080"] {
            #expect(loopback.accepts(ok), "\(ok)")
        }
        // A rebinding page carries its own name; the host name is not this page's when bound to loopback only.
        for bad in ["evil.example:8080", "bikepi:8080", "192.168.4.1:8080", "", nil] as [String?] {
            #expect(!loopback.accepts(bad), "\(bad ?? "nil")")
        }

        for ok in ["192.168.4.1:18083", "127.0.0.1:18083", "localhost:18083", "bikepi:18083", "bikepi.local", "0.0.0.0:18083"] {
            #expect(wildcard.accepts(ok), "\(ok)")
        }
        for bad in ["evil.example:18083", "10.0.0.9:18083", "bikepi.evil.example", "[fe80::1]:18083"] {
            #expect(!wildcard.accepts(bad), "\(bad)")
        }

        let v6 = ReviewHosts(listen: ReviewAddress("[::1]:8080")!, interfaces: { [] }, hostName: { nil })
        #expect(v6.accepts("[::1]:8080") && v6.accepts("localhost:8080") && !v6.accepts("[::2]:8080"))
    }

    @Test func startupNamesURLsAPhoneCanOpen() {
        let interfaces = [
            InterfaceAddress(interface: "lo", address: "127.0.0.1", isIPv6: false, isLoopback: true),
            InterfaceAddress(interface: "wlan0", address: "192.168.4.1", isIPv6: false, isLoopback: false),
            InterfaceAddress(interface: "eth0", address: "10.0.0.7", isIPv6: false, isLoopback: false),
            InterfaceAddress(interface: "eth0", address: "fd00::7", isIPv6: true, isLoopback: false),
        ]
        #expect(
            ReviewAddress("0.0.0.0:18083")!.phoneURLs(port: 18083, interfaces: interfaces)
                == ["http://192.168.4.1:18083", "http://10.0.0.7:18083"])
        #expect(
            ReviewAddress("[::]:18083")!.phoneURLs(port: 18083, interfaces: interfaces)
                == ["http://192.168.4.1:18083", "http://10.0.0.7:18083", "http://[fd00::7]:18083"])
        #expect(ReviewAddress("0.0.0.0:0")!.phoneURLs(port: 40000, interfaces: Array(interfaces.prefix(1))) == ["http://127.0.0.1:40000"])
        #expect(ReviewAddress("192.168.4.1:18083")!.phoneURLs(port: 18083, interfaces: interfaces) == ["http://192.168.4.1:18083"])
        // getifaddrs itself: every Linux machine has its loopback address.
        #expect(InterfaceAddress.current().contains { $0.isLoopback && $0.address == "127.0.0.1" })
    }

    /// A served page refuses another `Host` (421) before anything behind it runs: a
    /// rebinding page's wrong codes do not count against the rider's 5 tries.
    @Test(.timeLimitOnceRunning(.minutes(2))) func aForeignHostIsRefusedAndBurnsNoTry() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir, trips: 1)
        let code = try store.issuePairingCode()
        let wrong = code.code == "000000" ? "000001" : "000000"
        try await withReviewServer(store) { port in
            func request(_ host: String?, _ text: String) throws -> String {
                let c = try RawConnection(port: port, timeout: 30)  // the full suite loads 2 cores
                try c.send(text.replacingOccurrences(of: "HOST\r\n", with: host.map { "Host: \($0)\r\n" } ?? ""))
                return c.readResponse()
            }
            let body = "code=\(wrong)"
            let post =
                "POST /pair HTTP/1.1\r\nHOST\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            for _ in 0..<(Store.pairingAttempts + 1) {
                let answer = try request("evil.example:\(port)", post)
                #expect(answer.hasPrefix("HTTP/1.1 421"), "\(answer)")
                #expect(answer.contains("is not one of its addresses"))
            }
            let noHost = try request(nil, "GET /pair HTTP/1.0\r\nHOST\r\n\r\n")
            #expect(noHost.contains(" 400 ") && noHost.contains("names no host"), "\(noHost)")
            #expect(try request("127.0.0.1:\(port)", "GET /pair HTTP/1.1\r\nHOST\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 200"))
            #expect(try request("localhost:\(port)", "GET /pair HTTP/1.1\r\nHOST\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 200"))
        }
        // Six refused posts later the code still pairs: none of them counted.
        try store.redeemPairingCode(code.code)
    }

    /// A port in use is one sentence that says what to do, not "bind(descriptor:ptr:bytes:):
    /// Address already in use (errno: 98)".
    @Test(.timeLimitOnceRunning(.minutes(1))) func aPortInUseIsOneClearSentence() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir, trips: 1)
        // 127.0.0.2, not .1: the other tests' servers bind ports `WebDriver.freePort` found
        // free on 127.0.0.1, and holding one of those here would make theirs "in use".
        let (fd, port) = try WebDriver.boundSocket(host: "127.0.0.2")
        defer { close(fd) }
        #expect(listen(fd, 1) == 0)
        let taken = ReviewAddress(host: "127.0.0.2", port: port)
        let service = ReviewService(
            store: store, address: taken, addressSetBy: "--listen or review.listen",
            publishing: PublishingSetup(hubConfigured: false, fileAllowsTrips: true, keys: .daemon),
            logger: Logger(label: "review-test"))
        await #expect(throws: ReviewStartError.portInUse(taken, setBy: "--listen or review.listen")) { try await service.run() }
        #expect(
            ReviewStartError.portInUse(ReviewAddress("0.0.0.0:18083")!, setBy: "--listen or review.listen").description
                == "port 18083 is already in use on 0.0.0.0; pick another with --listen or review.listen")
    }
}
