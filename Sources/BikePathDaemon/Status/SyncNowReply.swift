import Foundation
import BikePathAPI

/// The daemon's answer to `sync` on the status socket (sent by `bikepathd drafts confirm`): its sync
/// loop was woken and tries now, or why it runs none.
public struct SyncNowReply: Sendable, Equatable, Codable {
    /// True when the sync loop was woken.
    public var woken: Bool
    /// Why the daemon syncs nothing (no hub, the token refused, …); nil when woken.
    public var off: String?

    /// A woken loop.
    public init() {
        woken = true
        off = nil
    }

    /// A daemon that syncs nothing, and why.
    public init(off reason: String) {
        woken = false
        off = reason
    }

    /// The reply as one JSON line.
    public func jsonLine() -> String { JSONText.snakeCaseLine(self) }
}

extension StatusClient {
    /// Asks the daemon on `path` to sync now (a confirmation was just made).
    public static func syncNow(path: String) throws(StatusSocketError) -> SyncNowReply {
        try ask(path, "sync", timeoutSeconds: 5)
    }
}
