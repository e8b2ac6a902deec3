import BikePathSync
import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import Testing

/// TLS verification is always on: a hub whose certificate comes from a private CA
/// is refused until that CA is given with `caFile`.
@Suite(.serialized, .ownThreads) struct TLSTests {
    /// A throwaway CA and a hub certificate for 127.0.0.1, made with the openssl CLI.
    static func makeCertificates(in dir: TempDir) throws {
        let openssl = "/usr/bin/openssl"
        func run(_ args: [String]) throws {
            let r = try runProcess(openssl, args)
            if r.status != 0 { throw TestFailure(description: "openssl \(args.first ?? ""): \(r.err)") }
        }
        try run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-keyout", dir.file("ca.key"), "-out", dir.file("ca.pem"), "-subj", "/CN=BikePath test CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
        ])
        try run([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", dir.file("hub.key"), "-out", dir.file("hub.csr"), "-subj", "/CN=127.0.0.1",
        ])
        try "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: dir.file("ext"), atomically: true, encoding: .utf8)
        try run([
            "x509", "-req", "-in", dir.file("hub.csr"), "-CA", dir.file("ca.pem"), "-CAkey", dir.file("ca.key"),
            "-CAcreateserial", "-days", "2", "-out", dir.file("hub.pem"), "-extfile", dir.file("ext"),
        ])
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")), .timeLimitOnceRunning(.minutes(2)))
    func privateCAIsTrustedOnlyWhenGiven() async throws {
        let device = try await Device(trips: 2, seconds: 300)
        defer { device.dir.cleanup() }
        try Self.makeCertificates(in: device.dir)
        let hub = try device.hub(extra: ["--tls-cert", device.dir.file("hub.pem"), "--tls-key", device.dir.file("hub.key")])
        defer { hub.stop() }
        let url = "https://127.0.0.1:\(hub.port)"
        let token = try DeviceToken.read(path: device.tokenFile)

        let untrusting = try HubClient(endpoint: HubEndpoint(baseURL: url, token: token, requestTimeoutSeconds: 5))
        let refused = try await device.engine(untrusting).syncOnce()
        await untrusting.shutdown()
        guard case .failed(let reason, _) = refused else { throw TestFailure(description: "an unknown CA was accepted: \(refused)") }
        #expect(reason.description.contains("unreachable"))
        #expect(try hub.records().isEmpty)

        let trusting = try HubClient(
            endpoint: HubEndpoint(baseURL: url, token: token, caFile: device.dir.file("ca.pem"), requestTimeoutSeconds: 5))
        let result = try await device.engine(trusting).syncOnce()
        await trusting.shutdown()
        #expect(result == .drained(sent: 5, quarantined: 0))
        try await device.verifyHub(hub)
    }
}
