import BikePathCore
import Testing
@testable import BikePathDaemon

/// The file's rules over the rider's consent, as `sync consent` checks them and `run` applies them.
@Suite struct ConsentPolicyTests {
    static func file(shareTrips: Bool? = nil, shareSOS: Bool? = nil, crash: Bool = false) -> DaemonConfiguration {
        var c = DaemonConfiguration()
        c.privacy.shareTrips = shareTrips
        c.privacy.shareSOS = shareSOS
        c.crash.enabled = crash
        return c
    }

    @Test("a share key set to false forbids turning its stream on; absent or true allows it")
    func ceiling() throws {
        #expect(throws: ConsentPolicy.Refusal.forbiddenByFile(.tripsAndDrafts)) {
            try ConsentPolicy.check(.tripsAndDrafts, on: true, file: Self.file(shareTrips: false))
        }
        try ConsentPolicy.check(.tripsAndDrafts, on: true, file: Self.file())
        try ConsentPolicy.check(.tripsAndDrafts, on: true, file: Self.file(shareTrips: true))
        try ConsentPolicy.check(.tripsAndDrafts, on: false, file: Self.file(shareTrips: false))
    }

    @Test("crash detection on: SOS sharing cannot be turned off")
    func crashNeedsSOS() throws {
        #expect(throws: ConsentPolicy.Refusal.neededByCrashDetection) {
            try ConsentPolicy.check(.sos, on: false, file: Self.file(crash: true))
        }
        try ConsentPolicy.check(.sos, on: false, file: Self.file())
    }

    @Test("run's corrections: forbidden streams off, SOS on for crash detection, nothing else touched")
    func corrections() {
        var consent = Consent()
        consent.tripsAndDrafts = true
        consent.livePosition = true
        let fixes = ConsentPolicy.corrections(of: consent, file: Self.file(shareTrips: false, crash: true))
        #expect(fixes.map(\.stream) == [.tripsAndDrafts, .sos])
        #expect(fixes.map(\.on) == [false, true])
        #expect(ConsentPolicy.corrections(of: consent, file: Self.file()).isEmpty)
    }
}
