#if canImport(Glibc)
    import Glibc
#endif

/// A synchronous entry point that runs the command as a task. An async main parks the main
/// thread with `dispatch_main`, whose `pthread_exit` unwinds that thread's stack through the
/// unwind tables and leaves 0.8 MB of them resident (`.eh_frame_hdr` and `.eh_frame`,
/// measured under gdb: docs/performance.md, "Memory of the daemon"). Nothing of the daemon
/// runs on the main actor, so the main thread only waits where `dispatch_main` leaves it: in
/// `sigsuspend` with no signal blocked. The task exits with status 0 as an async main does
/// when it returns; a failed command exits from its parser with its own status.
public enum SynchronousMain {
    public static func run(_ command: @escaping @Sendable () async -> Void) -> Never {
        Task.detached {
            await command()
            exit(0)
        }
        var none = sigset_t()
        sigemptyset(&none)
        while true { sigsuspend(&none) }
    }
}
