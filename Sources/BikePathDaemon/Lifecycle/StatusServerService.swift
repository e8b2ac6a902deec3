import ServiceLifecycle

/// The status socket (`StatusServer`, bound before the group starts so that a
/// second daemon on the same path is refused before anything runs), served
/// until shutdown. Last to stop, so `bikepathd status` answers while the
/// pipeline commits.
public struct StatusServerService: Service, CustomStringConvertible {
    let server: StatusServer

    /// Creates the service owning an already bound `server`.
    public init(server: StatusServer) { self.server = server }

    public var description: String { "status socket" }

    /// Waits for graceful shutdown (or cancellation), then closes the socket.
    public func run() async {
        try? await gracefulShutdown()  // throws only when cancelled: the socket closes either way
        await server.stop()
    }
}
