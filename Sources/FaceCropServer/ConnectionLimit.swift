// A cap on open connections (--max-connections). Each connection holds a file descriptor and some memory; past
// the process's descriptor limit the server could accept nothing at all, /health included. At the cap the
// server stops accepting, as Go's netutil.LimitListener does: new connections wait in the kernel's accept queue
// (the listen backlog) until one closes, instead of being reset.
import NIOCore
import Synchronization

/// Counts the server's open connections and pauses accepting while they are at the cap.
final class ConnectionLimit: Sendable {
    /// Connections open at once, at most (a few more may be accepted in the read that reaches the cap).
    let max: Int
    private let open = Atomic<Int>(0)

    init(max: Int) { self.max = max }

    /// Open connections now.
    var count: Int { open.load(ordering: .relaxed) }

    /// A handler for one connection's pipeline: it counts the connection while it is open.
    func handler() -> Handler { Handler(limit: self) }

    fileprivate func changed(by delta: Int, server: (any Channel)?) {
        open.add(delta, ordering: .relaxed)
        // Decided on the listening channel's event loop from the count as it is then: of all the decisions,
        // the last to run sees the last change, whatever order the connections' loops scheduled them in.
        guard let server else { return }
        server.eventLoop.execute { [self] in
            server.setOption(ChannelOptions.autoRead, value: count < max).whenFailure { _ in }
        }
    }

    /// Counts its connection from being added to the pipeline until the connection closes.
    final class Handler: ChannelInboundHandler, RemovableChannelHandler {
        /// Reads pass through untouched (NIO needs a handler to be inbound or outbound).
        typealias InboundIn = NIOAny
        private let limit: ConnectionLimit
        private var counted = false

        fileprivate init(limit: ConnectionLimit) { self.limit = limit }

        func handlerAdded(context: ChannelHandlerContext) {
            counted = true
            limit.changed(by: 1, server: context.channel.parent)
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            guard counted else { return }
            counted = false
            limit.changed(by: -1, server: context.channel.parent)
        }
    }
}
