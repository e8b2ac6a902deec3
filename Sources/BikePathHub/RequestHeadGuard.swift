import BikePathAPI
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes

/// One per connection, right after the HTTP/1 decoder. It closes a connection
/// whose first request head is not complete within the header timeout (later
/// requests on a kept-alive connection fall under Hummingbird's idle timeout),
/// and answers 431 when the decoder finds a head past `HubLimits`' header limits
/// (Hummingbird would say 400).
final class RequestHeadGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let headerTimeout: TimeAmount
    private var deadline: Scheduled<Void>?
    private var sawHead = false

    init(headerTimeout: TimeAmount) {
        self.headerTimeout = headerTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data), !sawHead {
            sawHead = true
            deadline?.cancel()
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parse = error as? HTTPParserError, parse == .headerOverflow else {
            context.fireErrorCaught(error)
            return
        }
        // Answer, then stop sending; the rest of the oversized head is read and dropped
        // (closing with it unread would reset the connection and lose the answer) until
        // the client closes or a timeout does.
        let body = (try? WireJSON.encode(ErrorBody(error: "headers-too-large", message:
            "request headers are limited to \(HubLimits.maxHeaderListSize) bytes, \(HubLimits.maxHeaderFieldSize) per field, \(HubLimits.maxHeaderCount) fields"))) ?? Data()
        let head = HTTPResponse(status: .requestHeaderFieldsTooLarge,
                                headerFields: [.contentType: "application/json", .contentLength: "\(body.count)", .connection: "close"])
        context.write(NIOAny(HTTPResponsePart.head(head)), promise: nil)
        context.write(NIOAny(HTTPResponsePart.body(ByteBuffer(bytes: body))), promise: nil)
        let done = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(NIOAny(HTTPResponsePart.end(nil)), promise: done)
        let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        done.futureResult.whenSuccess {
            let context = loopContext.value
            let halfClosed = context.eventLoop.makePromise(of: Void.self)
            context.close(mode: .output, promise: halfClosed)
            halfClosed.futureResult.whenFailure { _ in loopContext.value.close(promise: nil) }
        }
        arm(context)
    }

    /// Closes the connection after the header timeout, unless a head arrives first.
    private func arm(_ context: ChannelHandlerContext) {
        guard deadline == nil || sawHead else { return }
        deadline?.cancel()
        let loopContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: headerTimeout) { loopContext.value.close(promise: nil) }
    }
}
