import BikePathCore
import BikePathSensors
import BikePathStore
import Logging

/// A trip left open by a stop (SIGTERM, power cut) is continued when the ride
/// goes on and closed otherwise. "Goes on" means the chain starts a trip again
/// within `trip.start_after_s + trip.end_after_s` of sample time after start: that
/// start is then not a new trip, and the outputs go on into the open one. When it
/// ends, it is closed from all its stored points (both halves), not from the
/// chain's statistics of the second half only.
struct TripRecovery {
    enum State: Equatable {
        case none
        case undecided(tripID: String, deadline: SampleTime?)
        case resumed(tripID: String)
    }

    enum Action: Equatable {
        /// Hand the output to the writer.
        case write
        /// The open trip continues: drop this start.
        case resume(tripID: String)
        /// The continued trip ended: flush, close it from its points.
        case closeResumed(tripID: String)
    }

    private(set) var state: State = .none
    let window: Double

    init(openTrip: String?, window: Double) {
        self.window = window
        if let openTrip { state = .undecided(tripID: openTrip, deadline: nil) }
    }

    /// What to do with one chain output.
    mutating func action(for output: ChainOutput) -> Action {
        switch (state, output) {
        case (.undecided(let id, _), .tripStarted):
            state = .resumed(tripID: id)
            return .resume(tripID: id)
        case (.resumed(let id), .tripEnded):
            state = .none
            return .closeResumed(tripID: id)
        default:
            return .write
        }
    }

    /// Called every pass: returns the trip to close when the window passed without a start.
    mutating func expired(now: SampleTime) -> String? {
        guard case .undecided(let id, let deadline) = state else { return nil }
        guard let deadline else {
            state = .undecided(tripID: id, deadline: now + window)
            return nil
        }
        guard now > deadline else { return nil }
        state = .none
        return id
    }

    /// Shutdown while still undecided or resumed: the trip stays open for the next start.
    var openTripID: String? {
        switch state {
        case .none: nil
        case .undecided(let id, _), .resumed(let id): id
        }
    }
}

extension TripRecovery {
    /// A trip left open by the previous run, at start: closed now when its last
    /// point is older than `trip.end_after_s` (the ride is over), otherwise
    /// returned for the loop to continue or close. A replay plays the trip's start
    /// again (after a kill, or a second run), and the trip's id is derived from
    /// that start (docs/storage.md), so the same trip goes on: nothing to decide.
    /// - Throws: `StoreError` from reading or closing the trip.
    static func decideOpenTrip(store: Store, endAfterSeconds: Double, live: Bool, logger: Logger) throws -> String? {
        guard let open = try store.openTripInfo() else { return nil }
        guard live else {
            logger.notice("trip \(open.id) was left open: replaying its start again continues it")
            return nil
        }
        if let last = open.lastPointUTCNanoseconds {
            let age = Double(EdgeClock.realtimeNanoseconds() - last) / 1e9
            if age > endAfterSeconds {
                _ = try store.closeOpenTrip()
                logger.notice("trip \(open.id) was left open \(Int(age)) s ago: closed at its last point")
                return nil
            }
        }
        logger.notice("trip \(open.id) was left open: it continues if the ride goes on")
        return open.id
    }
}
