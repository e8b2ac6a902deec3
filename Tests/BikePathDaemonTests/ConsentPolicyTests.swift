import BikePathCore
import Testing
@testable import BikePathDaemon

/// The file's rules over the rider's consent, as `sync consent` checks them and `run` applies them.
@Suite(.ownThreads) struct ConsentPolicyTests {
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

    /// Crash detection never turns SOS sharing on at `run`'s start (that would undo the
    /// rider's `sync consent sos off`): the rider's choice stands and is reported.
    @Test("crash detection on: the rider may turn SOS sharing off, and is told an SOS would stay on the device")
    func crashDetectionNeverChangesConsent() throws {
        try ConsentPolicy.check(.sos, on: false, file: Self.file(crash: true))
        let off = Consent(tripsAndDrafts: true)
        #expect(ConsentPolicy.corrections(of: off, file: Self.file(crash: true)).isEmpty, "nothing is turned on")
        let said = try #require(ConsentPolicy.sosStaysOnDevice(consent: off, crashDetection: true))
        #expect(said.contains("an SOS would stay on this device") && said.contains("sync consent sos on"))
        #expect(ConsentPolicy.sosStaysOnDevice(consent: Consent(sos: true), crashDetection: true) == nil)
        #expect(ConsentPolicy.sosStaysOnDevice(consent: off, crashDetection: false) == nil)
    }

    @Test("run's corrections: forbidden streams off, nothing else touched, nothing turned on")
    func corrections() {
        var consent = Consent()
        consent.tripsAndDrafts = true
        consent.livePosition = true
        #expect(ConsentPolicy.corrections(of: consent, file: Self.file(shareTrips: false, crash: true)) == [.tripsAndDrafts])
        #expect(ConsentPolicy.corrections(of: consent, file: Self.file()).isEmpty)
    }
}
