/// Polls `condition` every `every` (10 ms), up to `polls` times (1,000: so at
/// least 10 s). Counted in polls, not by the clock: on 2 cores the whole test
/// run shares two pool threads, and CI saw them held by other suites for 80 s,
/// so a clock deadline could expire before the code under test had run at all.
public func waitUntil(
    polls: Int = 1_000, every interval: Duration = .milliseconds(10),
    _ condition: () -> Bool
) async -> Bool {
    for _ in 0..<polls {
        if condition() { return true }
        try? await Task.sleep(for: interval)  // cancelled: the remaining polls come at once
    }
    return condition()
}
