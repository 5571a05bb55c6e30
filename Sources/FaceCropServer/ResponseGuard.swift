// Three ways a connection could end badly, guarded in handlers placed before Hummingbird's own.
// - Requests carry no body here, but a client may announce one and send it a byte at a time. Hummingbird reads
//   a request's unread body after answering it, to reach the next request on the connection, and every byte
//   restarts the idle timeout: such clients could hold every connection (--max-connections) for as long as they
//   like. So a connection whose request body is still arriving when its response ends is closed instead.
// - On a graceful shutdown (and an idle timeout, which Hummingbird counts from the moment the response is handed
//   over, not from when a slow client has read it) Hummingbird closes a connection right after writing its last
//   response, and a close drops what the socket has not taken yet: the end of a large image. So a close waits
//   for the writes before it to reach the socket: for as long as more of them reach it (`minimumProgress` bytes)
//   within `stalledLooks` looks `interval` apart, up to `closeWaitLimit` in all. The kernel takes more from the
//   server only once the client has read about half its socket buffer (megabytes on a fast network), hence several
//   looks.
// - An HTTP/1.0 client that does not ask to keep its connection expects it closed after the response (RFC 9112
//   §9.3), and Hummingbird's version-free HTTP types cannot tell; nor that a response to CONNECT goes without
//   its body (NIO's encoder drops it, leaving the client to wait for one). And a request that cannot be parsed
//   gets Hummingbird's bare 400 where every other error is JSON. `HTTP1Rules`, on NIO's own HTTP/1 parts.
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Closes its connection once a response is written while the request's body is still arriving (the response
/// says `Connection: close`), and lets a close wait for the writes before it.
final class ResponseGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// How long a close waits for earlier writes to make progress (a client that stopped reading) before it
    /// happens anyway (`ServerConfiguration.slowReaderInterval`).
    let interval: TimeAmount
    /// The bytes the socket must take within `stalledLooks` looks for a close to wait on.
    static let minimumProgress = 16 << 10
    /// Looks without progress before a close happens anyway.
    static let stalledLooks = 3
    /// The longest a close waits for a client that keeps reading.
    static let closeWaitLimit = TimeAmount.minutes(10)

    /// A request's head has been read, its end not yet.
    private var bodyArriving = false
    /// The last write; writes complete in order, so when it has, all have.
    private var lastWrite: EventLoopFuture<Void>?
    /// Writes not yet complete.
    private var unwritten = 0
    /// A close waiting for the writes: later closes (an idle timeout, then a shutdown) wait for it too.
    private var closing: EventLoopFuture<Void>?
    /// The next look at how far the writes a close waits for have come.
    private var progressCheck: Scheduled<Void>?

    init(interval: TimeAmount) { self.interval = interval }

    /// Puts `HTTP1Rules` before Hummingbird's conversion to version-free HTTP types.
    func handlerAdded(context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        guard let codec = try? pipeline.context(handlerType: HTTP1ToHTTPServerCodec.self) else { return }
        try? pipeline.addHandler(HTTP1Rules(), position: .before(codec.handler))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: bodyArriving = true
        case .body: break
        case .end: bodyArriving = false
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let written = promise ?? context.eventLoop.makePromise()
        lastWrite = written.futureResult
        unwritten += 1
        let me = NIOLoopBound(self, eventLoop: context.eventLoop)
        written.futureResult.whenComplete { _ in me.value.unwritten -= 1 }
        guard bodyArriving else { return context.write(data, promise: written) }
        switch unwrapOutboundIn(data) {
        case .head(var response):
            response.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(response)), promise: written)
        case .body: context.write(data, promise: written)
        case .end:
            let channel = context.channel
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            context.write(data, promise: written)
        }
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .all, let closing {
            promise.map { closing.cascade(to: $0) }
            return
        }
        guard mode == .all, unwritten > 0, let pending = lastWrite else { return context.close(mode: mode, promise: promise) }
        let closed = context.eventLoop.makePromise(of: Void.self)
        closing = closed.futureResult
        promise.map { closed.futureResult.cascade(to: $0) }
        context.flush()
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let me = NIOLoopBound(self, eventLoop: context.eventLoop)
        closeUnlessReading(context: context, mode: mode, sent: Self.sent(context), stalled: 0, giveUp: .now() + Self.closeWaitLimit)
        pending.whenComplete { _ in
            me.value.progressCheck?.cancel()
            bound.value.close(mode: mode, promise: closed)
        }
    }

    /// The next look, `interval` on, at a close waiting for the writes: it waits on until `stalledLooks` looks in a
    /// row find less than `minimumProgress` bytes more `sent` to the client, or `giveUp` comes.
    private func closeUnlessReading(context: ChannelHandlerContext, mode: CloseMode, sent: Int, stalled: Int, giveUp: NIODeadline) {
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let me = NIOLoopBound(self, eventLoop: context.eventLoop)
        progressCheck = context.eventLoop.scheduleTask(in: interval) {
            let now = Self.sent(bound.value)
            let moved = now - sent >= Self.minimumProgress
            if moved || stalled + 1 < Self.stalledLooks, NIODeadline.now() < giveUp {
                let (before, stalls) = moved ? (now, 0) : (sent, stalled + 1)
                me.value.closeUnlessReading(context: bound.value, mode: mode, sent: before, stalled: stalls, giveUp: giveUp)
            } else {
                bound.value.close(mode: mode, promise: nil)
            }
        }
    }

    /// How far the response has gone, as a count that grows as the client takes it: the bytes the client has
    /// acknowledged (Linux's `tcpi_bytes_acked`), or, where the socket cannot tell, less the bytes still waiting
    /// in the server (which move only when the kernel has room: after the client read about half its buffer).
    static func sent(_ context: ChannelHandlerContext) -> Int {
        if let acknowledged = acknowledged(context) { return acknowledged }
        return -((try? context.channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 0)
    }

    /// `struct tcp_info` up to `tcpi_bytes_acked`, its 16th 64-bit word (Linux 4.1 and later).
    typealias TCPInfoHead = (
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
    )

    /// The bytes of this connection the client has acknowledged, read on the event loop; nil where TCP_INFO gives
    /// no such count.
    static func acknowledged(_ context: ChannelHandlerContext) -> Int? {
        guard let provider = context.channel as? SocketOptionProvider, context.eventLoop.inEventLoop else { return nil }
        let info: EventLoopFuture<TCPInfoHead> = provider.unsafeGetSocketOption(level: .tcp, name: .tcp_info)
        let acked = NIOLoopBoundBox<Int?>(nil, eventLoop: context.eventLoop)
        info.whenSuccess { acked.value = Int(clamping: $0.15) }  // on the event loop, the future is already complete
        return acked.value.flatMap { $0 > 0 ? $0 : nil }
    }
}

/// Closes the connection after the response to an HTTP/1.0 request that does not ask to keep it, and to a
/// CONNECT request (the response says `Connection: close`); answers bytes that are not an HTTP/1.1 request with
/// a JSON 400 and closes the connection. Requests may be pipelined: one entry per request read and not yet answered.
final class HTTP1Rules: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// Per request read and not yet answered, in order: whether its response ends the connection.
    private var closes: [Bool] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) { closes.append(head.method == .CONNECT || (head.version == .http1_0 && !head.isKeepAlive)) }
        context.fireChannelRead(data)
    }

    /// The parser's error, when no response is due: answered here, in JSON as every other error, and the
    /// connection closed (nothing after the error can be read). With a response due, Hummingbird's own answer.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parse = error as? HTTPParserError, closes.isEmpty else { return context.fireErrorCaught(error) }
        let body = ServerError(400, "The request is not HTTP/1.1 that can be read (\(parse)).").json
        let headers = HTTPHeaders([
            ("Content-Type", "application/json"), ("Content-Length", String(body.utf8.count)), ("Cache-Control", "no-store"), ("Connection", "close"),
        ])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        guard closes.first == true else {
            if case .end = part, !closes.isEmpty { closes.removeFirst() }
            return context.write(data, promise: promise)
        }
        switch part {
        case .head(var head):
            head.headers.replaceOrAdd(name: "connection", value: "close")
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .body: context.write(data, promise: promise)
        case .end:
            closes.removeFirst()
            let written = promise ?? context.eventLoop.makePromise()
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            written.futureResult.whenComplete { _ in bound.value.close(promise: nil) }
            context.write(data, promise: written)
        }
    }
}
