import BikePathAPI
import BikePathServing
import NIOCore
import Synchronization

/// Who is connected to the status socket, and the fan-out of events to the tail clients.
///
/// Made before the server (the pipeline's `publish` closure needs it, and the server's
/// `status` closure needs the pipeline), so neither waits for the other.
///
/// Admission: at most `maximumClients` (32) connections. When all are taken, a newcomer
/// takes the slot of the longest-waiting client that has not yet asked anything, from the
/// user (uid) holding the most such slots; a user may hold `tailShare` (8) tail clients.
/// So clients that connect and say nothing, however fast they reconnect, cannot keep
/// `status` and `mark` out (40 of them did, for 30 s, before this rule).
public final class StatusClients: Sendable {
    /// 32 × 256 KiB buffered = 8 MiB at most; a bike computer has one or two local readers.
    public static let defaultMaximumClients = ConnectionPolicy.statusSocket.maxConnections

    /// `leaving`: chosen to make room; it goes unless its request was already there.
    enum Role { case waiting, answering, tailing, leaving }

    private struct Connection {
        let channel: any Channel
        let uid: UInt32
        let since: NIODeadline
        var role: Role
        /// Delivers tail lines on the connection's own event loop.
        var handler: NIOLoopBound<StatusConnectionHandler>?
    }

    private let maximumClients: Int
    private let tailShare: Int
    private let connections = Mutex<[ObjectIdentifier: Connection]>([:])

    /// `maximumClients`: connections beyond it are closed at once. `tailShare`: tail clients one user may hold.
    public init(
        maximumClients: Int = StatusClients.defaultMaximumClients, tailShare: Int = ConnectionPolicy.statusSocket.perClient
    ) {
        self.maximumClients = maximumClients
        self.tailShare = max(1, min(tailShare, maximumClients))
    }

    /// Sends an event to every tail client. Cheap and never blocks: each client's loop
    /// appends it to that client's buffer, or counts it as dropped when the buffer is full.
    public func publish(_ event: DaemonEvent) {
        let line = ByteBuffer(string: JSONText.snakeCaseLine(event) + "\n")
        let tails = connections.withLock { $0.values.compactMap { $0.role == .tailing ? $0.handler : nil } }
        for handler in tails { handler.eventLoop.execute { handler.value.deliver(line) } }
    }

    /// Connections subscribed to events.
    public var tailCount: Int { connections.withLock { $0.values.count { $0.role == .tailing } } }

    /// Takes `channel` in, making room if every slot is taken; false when every client is busy.
    ///
    /// The one making room is not closed here but told on its own event loop (`MakeRoom`)
    /// `askGrace` after it connected, and it goes only if its request has not been read by
    /// then. A loop runs every due task, timers included, before it reads its sockets again,
    /// so while it is busy a connection can wait unread although its line has arrived; the
    /// other loop meanwhile admits the reconnecting clients that make it the longest-waiting.
    /// Told 1 ms after it was chosen, such a `status` was reset three times running (CI of
    /// 2026-11-30; with the loops busy in turn, `StatusSocketLimitTests` failed 4 runs in 5).
    /// Those told to leave keep their descriptor until then, so the cap may be passed by at
    /// most `maximumClients` more; past that a newcomer is closed at once.
    func admit(_ channel: any Channel, uid: UInt32) -> Bool {
        let now = NIODeadline.now()
        let (admitted, leaving) = connections.withLock { all -> (Bool, (channel: any Channel, at: NIODeadline)?) in
            var leaving: (channel: any Channel, at: NIODeadline)?
            if Self.holding(all) >= maximumClients, all.count - Self.holding(all) < maximumClients,
                let room = Self.longestWaiting(all), let chosen = all[room]
            {
                all[room]?.role = .leaving
                leaving = (chosen.channel, chosen.since + Self.askGrace)
            }
            guard Self.holding(all) < maximumClients else { return (false, leaving) }
            all[ObjectIdentifier(channel)] = Connection(channel: channel, uid: uid, since: now, role: .waiting)
            return (true, leaving)
        }
        if let (channel, at) = leaving {
            channel.eventLoop.scheduleTask(deadline: at) { channel.pipeline.fireUserInboundEventTriggered(MakeRoom()) }
        }
        return admitted
    }

    /// How long a client has, from its connect, before it may be let go to make room. A real
    /// client sends its line at once; this covers a loaded machine that runs neither the client
    /// nor the connection's loop for a while. Silent clients that reconnect are slowed by it
    /// too: each holds its descriptor at least this long.
    static let askGrace = TimeAmount.seconds(1)

    /// Told to a client chosen to make room: it leaves unless it has asked meanwhile.
    struct MakeRoom {}

    /// Slots taken: every connection but those told to make room.
    private static func holding(_ all: [ObjectIdentifier: Connection]) -> Int {
        all.values.count { $0.role != .leaving }
    }

    /// The longest-waiting client that has asked nothing, of the user holding the most such slots.
    private static func longestWaiting(_ all: [ObjectIdentifier: Connection]) -> ObjectIdentifier? {
        let waiting = all.filter { $0.value.role == .waiting }
        let perUser = Dictionary(grouping: waiting, by: { $0.value.uid })
        guard let (_, mostHeld) = perUser.max(by: { $0.value.count < $1.value.count }) else { return nil }
        return mostHeld.min(by: { $0.value.since < $1.value.since })?.key
    }

    /// The client asked for one answer (status, or a mark's reply): no longer first to make room.
    func answering(_ channel: any Channel) {
        connections.withLock { $0[ObjectIdentifier(channel)]?.role = .answering }
    }

    /// Subscribes the client to events; the number its user already holds when that is the most allowed.
    func beginTail(_ channel: any Channel, handler: NIOLoopBound<StatusConnectionHandler>) -> Int? {
        connections.withLock { all in
            let key = ObjectIdentifier(channel)
            guard let uid = all[key]?.uid else { return nil }  // already evicted: it is closing
            let held = all.values.count { $0.role == .tailing && $0.uid == uid }
            if held >= tailShare { return held }
            all[key]?.role = .tailing
            all[key]?.handler = handler
            return nil
        }
    }

    func remove(_ channel: any Channel) {
        _ = connections.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Forgets every connection and returns their channels, to be closed.
    func removeAll() -> [any Channel] {
        connections.withLock { all in
            defer { all.removeAll() }
            return all.values.map(\.channel)
        }
    }
}
