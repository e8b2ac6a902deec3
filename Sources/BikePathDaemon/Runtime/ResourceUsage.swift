import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Memory and CPU time of this process, for the benchmarks and the replay summary.
public enum ResourceUsage {
    /// Resident set size now (VmRSS in /proc/self/status), KiB; 0 if unknown.
    public static func currentRSSKilobytes() -> Int {
        // No /proc (not Linux): 0, documented as unknown.
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    /// Peak resident set size, KiB.
    public static func maxRSSKilobytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss)
    }

    /// User + system CPU time, seconds: the machine is shared, so wall time alone
    /// says as much about the neighbours as about the code measured.
    public static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
