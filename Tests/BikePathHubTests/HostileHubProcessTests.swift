import AsyncHTTPClient
import BikePathAPI
import BikePathDeviceTestSupport
import BikePathFixtures
import BikePathTestSupport
import Foundation
import NIOCore
import Testing

/// The real `bikepath-hub` process, sent the confirmations that took hubs down (`HostileRides`):
/// each is refused 400 naming its limit, nothing is stored or indexed for it, the process
/// stays up and small, and two riders' street still reaches the public map. The benchmark
/// (bench/hostile.sh) measures the same under load, in a memory cgroup.
@Suite(.serialized, .ownThreads) struct HostileHubProcessTests {
    static let tokens = [
        "hostile": "token-of-hostile-0123456789", "bike-1": "token-of-bike-1-0123456789", "bike-2": "token-of-bike-2-0123456789",
    ]

    @Test(.timeLimitOnceRunning(.minutes(4))) func theRidesThatTookHubsDownAreRefusedAndTheMapGoesOn() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        try HubHardeningTests.writeSecret(dir.file("tokens"), Self.tokens.map { "\($0.key) \($0.value)\n" }.joined())
        let hub = try HubProcess(db: dir.file("hub.sqlite"), tokens: dir.file("tokens"), extra: ["--device-rate", "0"])
        defer { hub.stop() }
        try await HubHardeningTests.withHTTP { http in
            // The giant as the benchmark sends it (12 MB): decoded before it is refused.
            for ride in [HostileRides.polar("POLE"), HostileRides.zigzag("ZIGZAG"), HostileRides.giant("GIANT")] {
                let answer = try await HubHardeningTests.send(
                    http, hub.url + "/v1/drafts/\(ride.draft.id)/confirmation", token: Self.tokens["hostile"],
                    body: try WireJSON.encode(ride),
                    timeout: 120)
                #expect(
                    answer.status == 400 && answer.result?.outcome == .invalid,
                    "\(ride.draft.id): \(answer.status) \(answer.result?.error ?? "")")
                #expect(
                    answer.result?.error?.contains("budget") == true || answer.result?.error?.contains("85") == true
                        || answer.result?.error?.contains("map") == true, "\(ride.draft.id) names the limit: \(answer.result?.error ?? "")")
            }
            #expect(try hub.records(device: "hostile").isEmpty, "nothing of the hostile rides is stored")

            // Two riders confirm the same pothole: it is public within seconds (the maintainer's pass).
            for device in ["bike-1", "bike-2"] {
                let ride = Fixtures.confirmation(id: "R-\(device)", obstacles: [("pothole", 300)])
                let answer = try await HubHardeningTests.send(
                    http, hub.url + "/v1/drafts/R-\(device)/confirmation", token: Self.tokens[device], body: try WireJSON.encode(ride))
                #expect(answer.status == 201, "\(device): \(answer.status)")
            }
            var features: [Any] = []
            let deadline = ContinuousClock.now + .seconds(60)
            while features.isEmpty, ContinuousClock.now < deadline {
                let answer = try await HubHardeningTests.send(
                    http, hub.url + "/v1/map/obstacles?bbox=13.39,52.51,13.42,52.53", method: .GET, token: nil, body: Data(), gzip: false)
                features = (try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["features"] as? [Any] ?? []
                if features.isEmpty { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(features.count == 1, "the two riders' pothole reached the map")
        }
        #expect(hub.process.exitedStatus() == nil, "the hub is still running")
        // The peak resident memory of the process (the kernel's high-water mark): the polar path
        // alone once grew it to 3 GB.
        let status = try String(contentsOfFile: "/proc/\(hub.process.pid)/status", encoding: .utf8)
        let peakKiB = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.flatMap { Int($0.split(separator: " ")[1]) } ?? .max
        #expect(peakKiB < 512 * 1024, "peak RSS \(peakKiB) KiB")
    }
}
