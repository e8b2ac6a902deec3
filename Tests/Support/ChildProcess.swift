import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A process a test started; stopped by its own pid, with the signal it needs.
/// Spawned with posix_spawn and reaped with waitpid rather than Foundation.Process: a child
/// spawned from a test's worker thread would inherit that thread's blocked signals
/// (SIGTERM would not stop it), and Process.waitUntilExit can miss the exit of a child.
public final class ChildProcess: @unchecked Sendable {
    public let pid: pid_t
    public let name: String
    private var exitStatus: Int32?

    /// `output`: a file for stdout (and stderr unless `errorOutput` names another); /dev/null when nil.
    public init(
        _ executable: String, _ arguments: [String], output: URL? = nil, errorOutput: URL? = nil
    ) throws {
        name = (executable as NSString).lastPathComponent
        let path = executableInPath(executable) ?? executable
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let out = output?.path ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let errorOutput {
            posix_spawn_file_actions_addopen(&actions, 2, errorOutput.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, &attributes, argv, environ)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        pid = child
    }

    /// Sends `signal` to this pid only and reaps it.
    public func stop(signal: Int32 = SIGTERM) {
        guard exitStatus == nil else { return }
        kill(pid, signal)
        _ = waitForExit()
    }

    /// Waits at most `timeout` seconds; nil while it still runs.
    public func waitForExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let code = exitedStatus() { return code }
            if Date() >= deadline { return nil }
            usleep(10_000)
        }
    }

    /// Its exit code once it has exited (reaped then), nil while it runs; never waits.
    public func exitedStatus() -> Int32? {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return exitStatus
    }

    /// Waits for the process to exit; returns its exit code (128 + signal when killed).
    public func waitForExit() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        return code
    }

    deinit { stop(signal: SIGKILL) }
}

/// `name` as found in PATH (or /usr/sbin, /sbin), or nil.
public func executableInPath(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for dir in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"] {
        let candidate = "\(dir)/\(name)"
        if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
}
