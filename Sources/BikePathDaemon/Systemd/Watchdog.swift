import Foundation

/// A counter the pipeline loop advances on every pass, including passes that
/// found no data (the loop waits with a timeout), so "no progress" means the
/// loop itself is stuck, not that the rider is standing still or gpsd is gone.
public final class Heartbeat: @unchecked Sendable {
    private let lock = NSLock()
    private var value: UInt64 = 0

    /// Creates a heartbeat at 0.
    public init() {}

    /// Advances the count by one; safe from any thread.
    public func beat() {
        lock.lock()
        value &+= 1
        lock.unlock()
    }

    public var count: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

/// Sends WATCHDOG=1 only while the heartbeat advances: a stalled pipeline stops
/// the pings and systemd (WatchdogSec=) restarts the service. Runs on its own
/// thread so that a stuck pipeline cannot keep it pinging.
public final class Watchdog: @unchecked Sendable {
    public let interval: Duration
    private let notifier: SystemdNotifier
    private let heartbeat: Heartbeat
    private let onStall: @Sendable (UInt64) -> Void
    private let condition = NSCondition()
    private var lastSeen: UInt64?
    private var stalledChecks: UInt64 = 0
    private var running = false
    private var thread: Thread?

    /// `interval` defaults to half of WATCHDOG_USEC; nil when systemd asked for no watchdog.
    /// `onStall` is called with the number of checks in a row without progress.
    public init?(notifier: SystemdNotifier, heartbeat: Heartbeat, interval: Duration? = nil,
                 onStall: @escaping @Sendable (UInt64) -> Void = { _ in }) {
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
        condition.lock()
        let progressed = lastSeen.map { $0 != now } ?? true
        lastSeen = now
        stalledChecks = progressed ? 0 : stalledChecks + 1
        let stalled = stalledChecks
        condition.unlock()
        if progressed {
            // A failed send is retried on the next check; nothing else to do.
            try? notifier.watchdogPing()
        } else {
            onStall(stalled)
        }
        return progressed
    }

    /// Starts the pinging thread (a second call does nothing).
    public func start() {
        condition.lock()
        defer { condition.unlock() }
        guard !running else { return }
        running = true
        let thread = Thread { [self] in loop() }
        thread.name = "watchdog"
        self.thread = thread
        thread.start()
    }

    /// Returns once the thread has stopped; no ping is sent after this.
    public func stop() {
        condition.lock()
        running = false
        condition.broadcast()
        while thread != nil { condition.wait() }
        condition.unlock()
    }

    private func loop() {
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        condition.lock()
        while running {
            condition.unlock()
            check()
            condition.lock()
            let deadline = Date(timeIntervalSinceNow: seconds)
            while running && Date() < deadline { _ = condition.wait(until: deadline) }
        }
        thread = nil
        condition.broadcast()
        condition.unlock()
    }
}
