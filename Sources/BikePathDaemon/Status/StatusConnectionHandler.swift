import BikePathAPI
import BikePathCore
import NIOCore

/// One status-socket connection: reads one request line and answers it (`status`, `mark`, `sync`),
/// or subscribes it to events (`tail`). Runs on the connection's event loop.
final class StatusConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// What every connection shares: the providers and limits.
    struct Shared: Sendable {
        let clients: StatusClients
        let status: @Sendable () async -> DaemonStatus
        let mark: MarkHandler?
        /// `sync`: wake the daemon's sync loop (a confirmation was just made); nil: this daemon syncs nothing.
        let syncNow: (@Sendable () -> SyncNowReply)?
        /// A client that has not sent a whole request by then is let go (idle connections pile up).
        let requestTimeout: TimeAmount
        /// A tail client whose buffer stays full this long is let go.
        let slowReaderTimeout: TimeAmount
    }

    /// The longest request line, its `\n` or `\r\n` not counted (docs/daemon.md): the longest
    /// request, `mark irregularity`, is 17 bytes; 4 KiB is room for any future one, and no more
    /// is buffered for a client that never ends its line.
    static let maximumRequest = 4096
    /// A mark not stored by then gets an error line: the pipeline is stuck.
    static let markTimeout = TimeAmount.seconds(10)

    private let shared: Shared
    private var context: ChannelHandlerContext?
    private var input = ByteBuffer()
    private var asked = false
    private var tailing = false
    private var awaitingMark = false
    /// Events not delivered since the buffer filled; told to the client when it catches up.
    private var dropped = 0
    private var requestDeadline: Scheduled<Void>?
    private var slowReaderDeadline: Scheduled<Void>?
    private var markDeadline: Scheduled<Void>?

    init(_ shared: Shared) { self.shared = shared }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let channel = context.channel
        requestDeadline = context.eventLoop.scheduleTask(in: shared.requestTimeout) { channel.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        for deadline in [requestDeadline, slowReaderDeadline, markDeadline] { deadline?.cancel() }
        shared.clients.remove(context.channel)
        self.context = nil
        context.fireChannelInactive()
    }

    /// Chosen to make room for a newcomer (`StatusClients.admit`): goes unless it has asked.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is StatusClients.MakeRoom else { return context.fireUserInboundEventTriggered(event) }
        if !asked { context.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !asked else { return }  // one request per connection; what follows is ignored
        var bytes = unwrapInboundIn(data)
        input.writeBuffer(&bytes)
        guard let newline = input.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            // The limit, plus the `\r` of a `\r\n` whose `\n` is still on its way.
            if input.readableBytes > Self.maximumRequest + 1 { refuseLongLine(context: context) }
            return
        }
        var line = Array(input.readableBytesView[input.readerIndex..<newline])
        if line.last == UInt8(ascii: "\r") { line.removeLast() }  // `\r\n`, as SMTP, HTTP and gpsd end lines
        guard line.count <= Self.maximumRequest else { return refuseLongLine(context: context) }
        asked = true
        requestDeadline?.cancel()
        input = ByteBuffer()
        handle(String(decoding: line, as: UTF8.self).trimmingSpaces(), context: context)
    }

    /// A line past the limit is not one of ours: one error line, then the connection closes
    /// (what else the client sends is not read).
    private func refuseLongLine(context: ChannelHandlerContext) {
        asked = true
        requestDeadline?.cancel()
        input = ByteBuffer()
        answer(
            JSONText.snakeCaseLine([
                "error": "request line longer than \(Self.maximumRequest) bytes; expected status, tail, sync or mark [KIND]"
            ]),
            context: context)
    }

    private func handle(_ request: String, context: ChannelHandlerContext) {
        switch (request, MarkRequest.parse(request)) {
        case ("status", _):
            shared.clients.answering(context.channel)
            // The status reads a few small store tables through a reader (no wait behind the
            // writer), awaited off the event loop and answered back on it. NIO's shared blocking
            // pool was tried: `status` then waited behind the pool's other users (1 of 20 timed
            // out in the full suite).
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            let status = context.eventLoop.makePromise(of: DaemonStatus.self)
            status.completeWithTask { [shared] in await shared.status() }
            status.futureResult.whenSuccess { bound.value.statusAnswered($0) }
        case ("sync", _):
            answer((shared.syncNow?() ?? SyncNowReply(off: "this daemon runs no sync")).jsonLine(), context: context)
        case ("tail", _):
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            if let held = shared.clients.beginTail(context.channel, handler: bound) {
                answer(
                    JSONText.snakeCaseLine(["error": "this user already has \(held) tail clients, the most one user may hold"]),
                    context: context)
            } else {
                tailing = true
            }
        case (_, .failure(let bad)?): answer(bad.reply.jsonLine(), context: context)
        case (_, .success(let kind)?):
            guard let mark = shared.mark else {
                return answer(MarkReply.failure("this daemon takes no marks").jsonLine(), context: context)
            }
            shared.clients.answering(context.channel)
            awaitingMark = true
            let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
            markDeadline = context.eventLoop.scheduleTask(in: Self.markTimeout) {
                bound.value.markAnswered(
                    .failure("the daemon did not store the mark within \(Self.markTimeout.nanoseconds / 1_000_000_000) s"))
            }
            // The pipeline answers from its own thread, at the next fix.
            mark(kind) { reply in bound.eventLoop.execute { bound.value.markAnswered(reply) } }
        default:
            answer(
                JSONText.snakeCaseLine(["error": "unknown request \"\(request)\"; expected status, tail, sync or mark [KIND]"]),
                context: context)
        }
    }

    /// One line, then the connection closes once it is written.
    private func answer(_ line: String, context: ChannelHandlerContext) {
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: line + "\n"))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// The status, if the client is still connected.
    private func statusAnswered(_ status: DaemonStatus) {
        guard let context else { return }
        answer(JSONText.snakeCaseLine(status), context: context)
    }

    /// The mark's reply (or its timeout): sent once, if the client is still connected.
    private func markAnswered(_ reply: MarkReply) {
        guard awaitingMark, let context else { return }
        awaitingMark = false
        markDeadline?.cancel()
        answer(reply.jsonLine(), context: context)
    }

    /// An event line for a tail client: written while its buffer has room (the channel's
    /// high-water mark), else counted; a buffer full for `slowReaderTimeout` ends the connection.
    func deliver(_ line: ByteBuffer) {
        guard tailing, let context else { return }
        guard context.channel.isWritable else {
            dropped += 1
            if slowReaderDeadline == nil {
                let channel = context.channel
                slowReaderDeadline = context.eventLoop.scheduleTask(in: shared.slowReaderTimeout) { channel.close(promise: nil) }
            }
            return
        }
        if dropped > 0 {
            let event = DaemonEvent(kind: "dropped", message: "\(dropped) events dropped: client too slow", fields: ["count": "\(dropped)"])
            context.write(wrapOutboundOut(ByteBuffer(string: JSONText.snakeCaseLine(event) + "\n")), promise: nil)
            dropped = 0
        }
        context.writeAndFlush(wrapOutboundOut(line), promise: nil)
    }

    /// It reads again (slowly, perhaps, but not stuck): the slow-reader deadline is off.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            slowReaderDeadline?.cancel()
            slowReaderDeadline = nil
        }
        context.fireChannelWritabilityChanged()
    }
}
