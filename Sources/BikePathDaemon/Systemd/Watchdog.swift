import Foundation
import Synchronization

/// A counter the pipeline loop advances on every pass, including passes that
/// found no data (the loop waits with a timeout), so "no progress" means the
/// loop itself is stuck, not that the rider is standing still or gpsd is gone.
public final class Heartbeat: Sendable {
    private let value = Atomic<UInt64>(0)

    /// Creates a heartbeat at 0.
    public init() {}

    /// Advances the count by one; safe from any thread.
    public func beat() { value.wrappingAdd(1, ordering: .relaxed) }

    public var count: UInt64 { value.load(ordering: .relaxed) }
}

/// Sends WATCHDOG=1 only while the heartbeat advances: a stalled pipeline stops
/// the pings and systemd (WatchdogSec=) restarts the service. The pipeline runs on a
/// thread of its own, so a stuck pipeline stops the heartbeat, not these checks; a
/// cooperative pool blocked for a whole interval misses a ping, and a daemon that stuck
/// should be restarted too.
public final class Watchdog: Sendable {
    public let interval: Duration
    private let notifier: SystemdNotifier
    private let heartbeat: Heartbeat
    private let onStall: @Sendable (UInt64) -> Void
    /// The count at the previous check, and how many checks in a row saw no progress.
    private let state = Mutex<(lastSeen: UInt64?, stalled: UInt64)>((nil, 0))

    /// `interval` defaults to half of WATCHDOG_USEC; nil when systemd asked for no watchdog.
    /// `onStall` is called with the number of checks in a row without progress.
    public init?(
        notifier: SystemdNotifier, heartbeat: Heartbeat, interval: Duration? = nil,
        onStall: @escaping @Sendable (UInt64) -> Void = { _ in }
    ) {
        guard let interval = interval ?? notifier.watchdogInterval else { return nil }
        self.interval = interval
        self.notifier = notifier
        self.heartbeat = heartbeat
        self.onStall = onStall
    }

    /// One check: pings if the heartbeat moved since the previous check (the
    /// first check counts as progress: the pipeline has only just started).
    /// Returns whether it pinged.
    @discardableResult
    public func check() -> Bool {
        let now = heartbeat.count
        let (progressed, stalled) = state.withLock { state in
            let progressed = state.lastSeen.map { $0 != now } ?? true
            state = (now, progressed ? 0 : state.stalled + 1)
            return (progressed, state.stalled)
        }
        if progressed {
            // A failed send is retried on the next check; nothing else to do.
            try? notifier.watchdogPing()
        } else {
            onStall(stalled)
        }
        return progressed
    }

    /// Checks every `interval` until cancelled; no ping is sent after it returns.
    public func run() async {
        while !Task.isCancelled {
            check()
            try? await Task.sleep(for: interval)
        }
    }
}
