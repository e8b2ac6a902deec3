import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Memory of this process, for the soak benchmark and the replay summary.
enum ResourceUsage {
    /// Resident set size now (VmRSS in /proc/self/status), KiB; 0 if unknown.
    static func currentRSSKilobytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    /// Peak resident set size, KiB.
    static func maxRSSKilobytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss)
    }
}
