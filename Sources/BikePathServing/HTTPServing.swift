import HummingbirdCore
import NIOCore

extension HTTPServerBuilder {
    /// HTTP/1 under `policy`: `ConnectionGuard` on every connection (one `ClientShares`
    /// for the server), Hummingbird's own idle timer as a second bound, and the decoder's
    /// header limits (a head past them is answered by `overflow`).
    public static func http1(
        policy: ConnectionPolicy, overflow: ConnectionGuard.Overflow,
        maxHeaderFieldSize: Int = 8 * 1024, maxHeaderListSize: Int = 16 * 1024,
        maxHeaderCount: Int = 100
    ) -> HTTPServerBuilder {
        let shares = ClientShares(policy: policy)
        return .http1(
            configuration: .init(
                additionalChannelHandlers: [ConnectionGuard(shares: shares, overflow: overflow)],
                idleTimeout: policy.idleTimeout,
                httpDecoderConfiguration: .init(
                    maxHeaderFieldSize: maxHeaderFieldSize, maxHeaderListSize: maxHeaderListSize,
                    maxHeaderFieldCount: maxHeaderCount)))
    }
}
