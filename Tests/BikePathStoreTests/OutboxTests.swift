import BikePathCore
import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import Testing
@testable import BikePathStore

@Suite(.ownThreads) struct OutboxTests {
    @Test func priorityHoldAttemptsQuarantineAndLog() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        _ = try replay(store, trips: 3, seconds: 120)
        let drafts = try await store.listDrafts()
        try store.confirmDraft(drafts[1].id)
        try store.confirmDraft(drafts[0].id)
        // SOS first, then confirmations oldest-queued first.
        var items = try await store.outboxPending()
        #expect(items.map(\.kind) == [.sos, .confirmation, .confirmation])
        #expect(items.map(\.recordID).suffix(2) == [drafts[1].id, drafts[0].id])

        try store.setDoNotSend(kind: .confirmation, recordID: drafts[1].id, true)
        items = try await store.outboxPending()
        #expect(items.map(\.recordID).contains(drafts[1].id) == false)

        let sos = items[0]
        try store.recordSyncAttempt(seq: sos.seq, outcome: .failed("timeout"), utcNanoseconds: 1)
        #expect(try await store.outboxPending()[0].attempts == 1)
        try store.recordSyncAttempt(seq: sos.seq, outcome: .sent, utcNanoseconds: 2)
        let confirmation = try #require(try await store.outboxPending().first)
        try store.recordSyncAttempt(seq: confirmation.seq, outcome: .quarantined("server said 422: bad payload"), utcNanoseconds: 3)
        #expect(try await store.outboxPending().isEmpty)
        #expect(try store.diagnostics().outboxQuarantined == 1)
        let log = try store.syncLog()
        #expect(log.map(\.outcome) == ["quarantined", "sent", "failed"])
        #expect(log.last?.detail == "timeout")
        #expect(log.first?.recordID == drafts[0].id)
    }
}
