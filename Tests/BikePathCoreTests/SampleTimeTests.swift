import Testing
@testable import BikePathCore

@Test func sampleTimeArithmeticIsExact() {
    let t = SampleTime(nanoseconds: 1_000_000_000)
    #expect((t + 0.5).nanoseconds == 1_500_000_000)
    #expect((t + 0.5) - t == 0.5)
    #expect(SampleTime(seconds: 2.25).nanoseconds == 2_250_000_000)
}
