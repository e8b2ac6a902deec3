/// Time arithmetic that cannot trap. The chain must survive any input (a corrupt
/// recording, a fuzzer): differences wrap instead of overflowing, additions saturate.
extension SampleTime {
    @inline(__always)
    func secondsSince(_ earlier: SampleTime) -> Double {
        Double(nanoseconds &- earlier.nanoseconds) * 1e-9
    }

    @inline(__always)
    func advanced(bySeconds seconds: Double) -> SampleTime {
        let delta = seconds * 1e9
        guard delta.isFinite, abs(delta) < 9.2e18 else { return self }
        let (sum, overflow) = nanoseconds.addingReportingOverflow(Int64(delta.rounded()))
        return overflow ? SampleTime(nanoseconds: delta > 0 ? .max : .min) : SampleTime(nanoseconds: sum)
    }
}
