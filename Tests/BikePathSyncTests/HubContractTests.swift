import BikePathAPI
import BikePathCore
import BikePathDeviceTestSupport
import BikePathStore
import BikePathSync
import Foundation
import Testing

/// What the device puts in an upload (the hub's own contract is tested in process in BikePathHubTests,
/// its process on loopback in HubHardeningTests there).
@Suite(.serialized, .ownThreads) struct HubContractTests {
    @Test func sosInsideAZoneGoesWithoutItsPosition() async throws {
        let device = try await Device(trips: 1, seconds: 60)
        defer { device.dir.cleanup() }
        let z = Device.zone.center
        let stored = #"{"id":"SOS-Z","impact_peak":40,"impact_time_ns":5,"lat":\#(z.latitude),"lon":\#(z.longitude),"time_ns":9}"#
        let outside = #"{"id":"SOS-O","impact_peak":40,"impact_time_ns":5,"lat":48.1,"lon":11.5,"time_ns":9}"#
        try device.store.enqueueForSync(kind: .sos, id: "SOS-Z", payload: stored)
        try device.store.enqueueForSync(kind: .sos, id: "SOS-O", payload: outside)
        let builder = UploadBuilder(privacy: Device.privacy)
        let items = try await device.store.outboxPending().filter { $0.kind == .sos && $0.recordID.hasPrefix("SOS-") }
        let bodies = try items.map { try builder.body(for: $0, confirmedSha256: nil) }
        #expect(bodies.contains { if case .sos(let s) = $0 { s.id == "SOS-Z" && s.position == nil } else { false } })
        #expect(
            bodies.contains {
                if case .sos(let s) = $0 { s.id == "SOS-O" && s.position == WirePosition(lat: 48.1, lon: 11.5) } else { false }
            })
    }
}
