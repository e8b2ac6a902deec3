import BikePathCore
import Synchronization

/// `bikepathd mark` inside the daemon: marks arrive on the status socket's thread, wait
/// here for the pipeline thread, which puts each into the chain's input as a
/// `SensorRecord.label` at its current sample time, and are answered once the chain
/// emits the rider-reported obstacle (placed at the next fix).
public final class RiderMarks: Sendable {
    struct Request {
        var kind: ObstacleKind
        var reply: @Sendable (MarkReply) -> Void
    }

    struct Placed {
        var time: SampleTime
        var kind: ObstacleKind
        var reply: @Sendable (MarkReply) -> Void
    }

    /// A mark placed this long (sample time) ago without a fix since is answered as
    /// stored without a position: the rider should not wait on the button.
    static let positionWaitSeconds = 3.0

    private let requests = Mutex<[Request]>([])

    /// Creates an empty queue of marks.
    public init() {}

    /// The status socket's side.
    public func submit(_ kind: ObstacleKind, reply: @escaping @Sendable (MarkReply) -> Void) {
        requests.withLock { $0.append(Request(kind: kind, reply: reply)) }
    }

    /// The pipeline thread's side: the marks submitted since the last call.
    func take() -> [Request] {
        requests.withLock { r in
            defer { r.removeAll() }; return r
        }
    }
}
