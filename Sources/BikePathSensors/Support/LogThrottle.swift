/// Keeps a repeating problem (garbage lines, failing reads) visible in the log without
/// flooding it: the first few occurrences are logged, then every `every`-th.
struct LogThrottle: Sendable {
    var first = 5
    var every = 100

    func shouldLog(count: Int) -> Bool { count <= first || count % every == 0 }
}
