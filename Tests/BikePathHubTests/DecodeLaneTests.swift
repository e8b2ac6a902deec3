import Foundation
import Synchronization
import Testing

@testable import BikePathHub

/// Large bodies are decoded on a lane of their own (`DecodeWorkers`): however many wait
/// there, a ride's small upload is decoded at once on the other.
@Suite(.ownThreads) struct DecodeLaneTests {
    final class Gate: Sendable {
        let open = Atomic<Bool>(false)
    }

    @Test(.timeLimitOnceRunning(.minutes(1))) func largeBodiesNeverHoldTheSmallOnes() async throws {
        let workers = DecodeWorkers(threads: 2, maxInFlight: 8)
        let release = Gate()
        let large = DecodeWorkers.largeBody + 1
        // Two large decodes that take as long as the test wants: with one pool of two threads
        // they would hold both, and the small one would wait for them.
        let held = (0..<2).map { _ in
            Task {
                try await workers.run(bytes: large) {
                    while !release.open.load(ordering: .relaxed) { usleep(1_000) }
                    return "large"
                }
            }
        }
        try await Task.sleep(for: .milliseconds(200))
        let t0 = ContinuousClock.now
        let small = try await workers.run(bytes: 6_000) { "small" }
        let waited = ContinuousClock.now - t0
        release.open.store(true, ordering: .relaxed)
        for task in held { #expect(try await task.value == "large") }
        #expect(small == "small" && waited < .seconds(2), "the small body waited \(waited)")
    }
}
