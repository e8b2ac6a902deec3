import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// One per HTTP connection, right after the HTTP/1 decoder; applies a `ConnectionPolicy`:
/// - a client past its share (`ClientShares`) is closed at once;
/// - the first request head must be complete within `headerTimeout` of the accept, a
///   body within `bodyTimeout` of its head, and the next head within `idleTimeout` of
///   the last response's end; each a total, whatever trickles in meanwhile (the
///   server's own time to answer is not counted);
/// - a head past the decoder's limits gets `overflow` as a 431 (Hummingbird would say 400).
public final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    /// The 431 answer in the server's own shape.
    public struct Overflow: Sendable {
        public var contentType: String
        public var body: [UInt8]
        /// Fields the server's every answer carries (the review page's security headers).
        public var headers: HTTPFields
        public init(contentType: String, body: [UInt8], headers: HTTPFields = [:]) {
            self.contentType = contentType
            self.body = body
            self.headers = headers
        }
    }

    private let shares: ClientShares
    private let overflow: Overflow
    private var client: String?
    private var admitted = false
    private var deadline: Scheduled<Void>?

    public init(shares: ClientShares, overflow: Overflow) {
        self.shares = shares
        self.overflow = overflow
    }

    public func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
    }

    public func channelActive(context: ChannelHandlerContext) {
        admit(context)
        context.fireChannelActive()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        leave()
        context.fireChannelInactive()
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        leave()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: arm(context, shares.policy.bodyTimeout)
        case .body: break
        case .end:
            // The server's turn: its answer is not the client's delay.
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { arm(context, shares.policy.idleTimeout) }
        context.write(data, promise: promise)
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parse = error as? HTTPParserError, parse == .headerOverflow else {
            context.fireErrorCaught(error)
            return
        }
        // Answer, then stop sending; the rest of the oversized head is read and dropped
        // (closing with it unread would reset the connection and lose the answer) until
        // the client closes or the header deadline does.
        var fields: HTTPFields = [.contentType: overflow.contentType, .contentLength: "\(overflow.body.count)", .connection: "close"]
        fields.append(contentsOf: overflow.headers)
        let head = HTTPResponse(status: .requestHeaderFieldsTooLarge, headerFields: fields)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: overflow.body))), promise: nil)
        let done = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: done)
        let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        done.futureResult.whenSuccess {
            let context = loopContext.value
            let halfClosed = context.eventLoop.makePromise(of: Void.self)
            context.close(mode: .output, promise: halfClosed)
            halfClosed.futureResult.whenFailure { _ in loopContext.value.close(promise: nil) }
        }
        arm(context, shares.policy.headerTimeout)
    }

    /// Takes the client's slot, or closes a client past its share; then the header deadline.
    private func admit(_ context: ChannelHandlerContext) {
        guard !admitted else { return }
        admitted = true
        let key = context.channel.remoteAddress?.ipAddress ?? context.channel.remoteAddress?.description ?? "?"
        guard shares.take(key) else {
            context.close(promise: nil)
            return
        }
        client = key
        arm(context, shares.policy.headerTimeout)
    }

    private func leave() {
        deadline?.cancel()
        deadline = nil
        if let client { shares.release(client) }
        client = nil
    }

    /// Closes the connection `timeout` from now unless something re-arms or cancels it first.
    private func arm(_ context: ChannelHandlerContext, _ timeout: TimeAmount) {
        deadline?.cancel()
        let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) { loopContext.value.close(promise: nil) }
    }
}
