import BikePathAPI
import BikePathCore
import BikePathDeviceTestSupport
import BikePathStore
import BikePathSync
import BikePathTestSupport
import Foundation
import Testing

/// A rider upgrades with rides still queued: the outbox holds them as the previous build
/// wrote them (camelCase wire JSON, linked into the hash chain, so never rewritten). The new
/// build reads them (`WireKeys`), sends them in today's keys, and a real hub stores them.
@Suite(.serialized, .ownThreads) struct PreReleaseOutboxTests {
    @Test(.timeLimitOnceRunning(.minutes(2))) func ridesQueuedByThePreviousBuildLeave() async throws {
        let device = try await Device(trips: 1, seconds: 300, confirm: 0)
        defer { device.dir.cleanup() }
        let trip = TripUpload(id: "OLD-T1", startUtcNs: 1_793_520_000_000_000_000, endUtcNs: nil, statistics: ValidationTests.stats)
        let builder = UploadBuilder(privacy: Device.privacy)
        let doc = try await device.store.draft(try #require(try await device.store.listDrafts().first?.id))
        let draft = builder.draft(doc, uploadID: "OLD-D1")
        let queued = [
            (OutboxKind.trip, trip.id, try PreReleaseJSON.encode(trip), "startUtcNs"),
            (.draft, draft.id, try PreReleaseJSON.encode(draft), "roadQuality"),
        ]
        for (kind, id, payload, oldKey) in queued {
            let text = String(decoding: payload, as: UTF8.self)
            #expect(text.contains("\"\(oldKey)\""), "queued in the pre-release keys")
            #expect(try device.store.enqueueForSync(kind: kind, id: id, payload: text))
        }
        let hub = try device.hub()
        defer { hub.stop() }
        try await withClient(device, url: hub.url) { client in
            _ = try await drain(device.engine(client))
        }
        let quarantined = try device.store.syncDiagnosis().quarantined
        #expect(quarantined.isEmpty, "\(quarantined)")
        let held = try hub.records()
        let sentTrip = try #require(held.first { $0.kind == "trip" && $0.id == trip.id })
        // A plain decoder reads only today's keys: the hub holds the record in them.
        #expect(try JSONDecoder().decode(TripUpload.self, from: sentTrip.body) == trip)
        let sentDraft = try #require(held.first { $0.kind == "draft" && $0.id == draft.id })
        let stored = try JSONDecoder().decode(DraftUpload.self, from: sentDraft.body)
        #expect(stored.trip == draft.trip && stored.roadQuality.count == draft.roadQuality.count && !stored.path.isEmpty)
    }
}
