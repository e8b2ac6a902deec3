import Foundation

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

/// `waitUntil` for synchronous tests (on `.ownThreads`, where blocking is allowed): polls
/// `condition` every `every` (2 ms) up to `polls` times (5,000: at least 10 s), so a
/// condition that never comes fails the test instead of hanging the run.
public func pollUntil(polls: Int = 5_000, everyMicroseconds interval: UInt32 = 2_000, _ condition: () -> Bool) -> Bool {
    for _ in 0..<polls {
        if condition() { return true }
        usleep(interval)
    }
    return condition()
}
