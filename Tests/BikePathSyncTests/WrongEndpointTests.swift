import BikePathDeviceTestSupport
import BikePathStore
import BikePathSync
import BikePathTestSupport
import Foundation
import Testing

/// A wrong hub URL (404/405 for the endpoint) is a configuration error: sync stops
/// and says so, and nothing is quarantined. (`bikepathd sync` on a wrong URL and
/// `sync requeue`: BikePathCLITests.)
@Suite(.serialized, .ownThreads) struct WrongEndpointAndRequeueTests {
    @Test(.timeLimitOnceRunning(.minutes(2))) func wrongHubURLStopsAndQuarantinesNothing() async throws {
        let device = try await Device(trips: 2, seconds: 300, confirm: 1)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        let pendingBefore = try device.store.syncDiagnosis().pending
        try await withClient(device, url: hub.url + "/typo") { client in
            let engine = try device.engine(client)
            let result = await engine.syncOnce()
            guard case .misconfigured(let reason) = result else {
                Issue.record("a 404 for the whole endpoint must stop sync, got \(result)")
                return
            }
            #expect(reason.contains("404") && reason.contains("/typo"), "\(reason)")
            #expect(await engine.stoppedReason == reason)
            #expect(await engine.syncOnce() == result, "stopped until restarted")
        }
        let after = try device.store.syncDiagnosis()
        #expect(after.quarantined.isEmpty, "a wrong URL is no verdict on a record")
        #expect(after.pending.values.reduce(0, +) >= pendingBefore.values.reduce(0, +), "nothing left the queue")
        #expect(try hub.records().isEmpty)
        #expect(after.recentLog.contains { $0.outcome == "misconfigured" })

        // The same store with the right URL sends everything.
        try await withClient(device, url: hub.url) { client in
            let passes = try await drain(device.engine(client))
            #expect(passes > 0)
        }
        try await device.verifyHub(hub)
    }
}
