import Foundation

/// Runs blocking work (a child process, a socket read) on a thread of its own and
/// awaits it. Swift's pool has one thread per core (two here) for the whole test
/// process: a test that blocks one while an in-process server (the hub, the review
/// page) needs the pool to answer stalls every suite until a read times out. CI saw
/// exactly that: a hub request timing out after 20 s, a page read after 30 s.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// `runProcess` for async tests: the child runs while the pool stays free.
@discardableResult
public func runProcess(_ path: String, _ arguments: [String]) async throws -> (status: Int32, out: String, err: String) {
    try await offThePool { try runProcess(path, arguments) }
}
