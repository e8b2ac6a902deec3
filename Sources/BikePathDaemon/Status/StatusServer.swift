import BikePathServing
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// The daemon's side of the status socket: a Unix stream socket (mode 0660) served on
/// NIO's event loops, so a slow or stuck client never blocks the pipeline.
///
/// Protocol (text lines): the client sends `status\n` and gets one JSON line of
/// `DaemonStatus`, then the connection closes; or `tail\n` and gets every `DaemonEvent`
/// published from then on, one JSON line each. A tail client that reads too slowly loses
/// events (256 KiB are buffered for it) and is told so by a `dropped` event when it catches
/// up; one whose buffer stays full for `slowReaderSeconds` is disconnected. `mark [KIND]\n`
/// tells the daemon the rider just passed an obstacle; the one JSON line of `MarkReply`
/// comes when the mark is stored (at the next fix, within 10 s, else an error line).
///
/// Limits (`ConnectionPolicy.statusSocket`, docs/connections.md): who gets a slot is
/// `StatusClients`' rule. At most `acceptBatch` connections are accepted per read of the
/// listening socket, and a client chosen to make room leaves only if its request has not
/// arrived (`StatusClients.admit`). When
/// accept(2) fails for lack of descriptors (EMFILE/ENFILE), or a client would take one of
/// the last `descriptorHeadroom` (16) below the soft limit, accepting pauses for
/// `acceptBackoff` instead of spinning on a readable socket.
public final class StatusServer: Sendable {
    public let path: String
    private let clients: StatusClients
    private let listener: any Channel
    /// Device and inode of the socket file this server made: at stop, the file at `path` is
    /// removed only if it is still that one (a file put there meanwhile is not ours to delete).
    private let socketIdentity: (dev: UInt64, inode: UInt64)?
    private let stopped = Mutex<EventLoopFuture<Void>?>(nil)

    /// Per client: 32 × 256 KiB = 8 MiB at most.
    static let maximumBuffered = 256 * 1024
    /// Accepted per read of the listening socket: a quarter of the slots.
    static let acceptBatch = 8
    static let acceptBackoff = TimeAmount.milliseconds(500)
    /// Descriptors kept free for the rest of the daemon (sqlite, libiio, libgps, libdispatch).
    static let descriptorHeadroom = 16
    /// How long `mark` may wait for the pipeline (the client's own timeout is 5 s longer).
    static let markTimeout = Double(StatusConnectionHandler.markTimeout.nanoseconds) / 1e9

    /// Binds the socket (replacing a stale one left by a crash, refusing if another daemon
    /// answers on it, or if PATH is anything but a socket: a mistyped path must never
    /// delete a file) and starts serving. `requestTimeoutSeconds`: a client that has not
    /// sent a whole request by then is disconnected. `clients`: who may connect (and the
    /// events' fan-out, which the daemon makes first). `group`: the event loops it runs on.
    public init(
        path: String, permissions: mode_t = 0o660,
        requestTimeoutSeconds: Double = ConnectionPolicy.statusSocket.headerTimeoutSeconds,
        clients: StatusClients = StatusClients(), slowReaderSeconds: Double = 10,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, status: @escaping @Sendable () async -> DaemonStatus,
        mark: MarkHandler? = nil,
        syncNow: (@Sendable () -> SyncNowReply)? = nil
    ) throws(StatusSocketError) {
        self.path = path
        self.clients = clients
        guard UnixAddress.make(path) != nil else { throw .badPath(path) }
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path) }
            if StatusClient.isAnswering(path) { throw .alreadyRunning(path) }
            unlink(path)  // a stale socket: nobody answers on it
        }
        let shared = StatusConnectionHandler.Shared(
            clients: clients, status: status, mark: mark, syncNow: syncNow,
            requestTimeout: .nanoseconds(Int64(requestTimeoutSeconds * 1e9)),
            slowReaderTimeout: .nanoseconds(Int64(slowReaderSeconds * 1e9)))
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 16)
            .serverChannelOption(.maxMessagesPerRead, value: UInt(Self.acceptBatch))
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        AcceptBackoffHandler(shouldForwardIOErrorCaught: false, backoffProvider: Self.backoff))
                }
            }
            .childChannelOption(.writeBufferWaterMark, value: .init(low: Self.maximumBuffered * 3 / 4, high: Self.maximumBuffered))
            .childChannelInitializer { channel in Self.admit(channel, shared: shared) }
        do {
            listener = try bootstrap.bind(unixDomainSocketPath: path).wait()
        } catch {
            throw .system("bind \(path)", (error as? IOError)?.errnoCode ?? EIO)
        }
        guard chmod(path, permissions) == 0 else {
            let e = errno
            try? listener.close().wait()
            throw .system("chmod \(path)", e)
        }
        var socketFile = stat()
        socketIdentity = lstat(path, &socketFile) == 0 ? (UInt64(socketFile.st_dev), UInt64(socketFile.st_ino)) : nil
    }

    /// Sends an event to every tail client; never blocks (see `StatusClients.publish`).
    public func publish(_ event: DaemonEvent) { clients.publish(event) }

    public var tailClientCount: Int { clients.tailCount }

    /// Closes the socket and every connection, removes the socket file; returns when done.
    public func stop() async { try? await closing().get() }

    /// `stop()` for callers outside Swift concurrency (not on an event loop).
    public func stopAndWait() { try? closing().wait() }

    private func closing() -> EventLoopFuture<Void> {
        stopped.withLock { future in
            if let future { return future }
            let loop = listener.eventLoop
            let closed = listener.close().flatMapErrorThrowing { _ in }.flatMap { [clients] in
                EventLoopFuture.andAllComplete(clients.removeAll().map { $0.close() }, on: loop)
            }.map { [path, socketIdentity] in Self.removeSocketFile(path, ifStill: socketIdentity) }
            future = closed
            return closed
        }
    }

    private static func removeSocketFile(_ path: String, ifStill identity: (dev: UInt64, inode: UInt64)?) {
        var now = stat()
        guard let identity, lstat(path, &now) == 0, now.st_mode & S_IFMT == S_IFSOCK,
            UInt64(now.st_dev) == identity.dev, UInt64(now.st_ino) == identity.inode
        else { return }
        unlink(path)
    }

    /// Pauses accepting on lack of descriptors or memory; other accept errors are not retried sooner.
    private static func backoff(_ error: IOError) -> TimeAmount? {
        [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode) ? acceptBackoff : nil
    }

    /// A new connection: closed at once when it would eat into the descriptor headroom or
    /// when every slot is busy; otherwise given a slot and its handler.
    private static func admit(_ channel: any Channel, shared: StatusConnectionHandler.Shared) -> EventLoopFuture<Void> {
        guard hasDescriptorHeadroom() else {
            // Keep the last descriptors for the rest of the daemon: libdispatch traps (SIGILL)
            // when it cannot open /proc to watch its threads, and the store and the sensors
            // need them too. Treated like EMFILE: the listener backs off.
            channel.parent?.pipeline.fireErrorCaught(IOError(errnoCode: EMFILE, reason: "status socket: descriptor headroom"))
            return channel.eventLoop.makeFailedFuture(IOError(errnoCode: EMFILE, reason: "descriptor headroom"))
        }
        return peerUID(channel).flatMap { uid in
            // Every slot asks or tails: the client sees the connection closed at once.
            guard shared.clients.admit(channel, uid: uid) else {
                return channel.eventLoop.makeFailedFuture(ChannelError.inputClosed)
            }
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(StatusConnectionHandler(shared))
            }
        }
    }

    /// Whether the next descriptor is below the soft RLIMIT_NOFILE minus the headroom.
    /// Descriptors are handed out lowest first, so the lowest free one bounds how many are used.
    private static func hasDescriptorHeadroom() -> Bool {
        var limit = rlimit()
        // RLIM_INFINITY is all ones: clamped, it leaves no ceiling.
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return true }
        let ceiling = Int64(clamping: limit.rlim_cur) - Int64(descriptorHeadroom)
        let probe = open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard probe >= 0 else { return false }
        close(probe)
        return Int64(probe) < ceiling
    }

    /// `struct ucred` (pid, uid, gid); Glibc's module hides it behind _GNU_SOURCE.
    private struct PeerCredentials: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = .max
        var gid: UInt32 = 0
    }

    /// The connecting process's user, from the kernel (SO_PEERCRED); `.max` when unknown.
    private static func peerUID(_ channel: any Channel) -> EventLoopFuture<UInt32> {
        guard let options = channel as? any SocketOptionProvider else { return channel.eventLoop.makeSucceededFuture(.max) }
        let credentials: EventLoopFuture<PeerCredentials> = options.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return credentials.map(\.uid).recover { _ in .max }
    }
}
