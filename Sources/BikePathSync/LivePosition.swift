import BikePathAPI
import BikePathCore
import BikePathStore
import Foundation

/// The optional live-position stream: latest-only, never queued. Each fix
/// replaces the previous one; at every tick, while riding and allowed, the
/// current position is sent once. A failed send is not retried: the next tick
/// sends whatever is current then, so after an hour offline only the position
/// of that moment goes out. It has its own requests, so it never waits behind
/// the outbox.
public actor LivePositionPublisher {
    let client: HubClient
    let store: Store
    public let intervalSeconds: Double
    private var latest: GNSSFix?
    private var latestSent = true
    public private(set) var riding = false
    public private(set) var sentCount = 0
    public private(set) var lastOutcome: String?

    /// Creates a publisher; `intervalSeconds` is the time between the ticks of its loop (10 s).
    public init(client: HubClient, store: Store, intervalSeconds: Double = 10) {
        self.client = client
        self.store = store
        self.intervalSeconds = intervalSeconds
    }

    /// Makes `fix` the current position (fixes without a position are ignored).
    public func update(_ fix: GNSSFix) {
        guard fix.coordinate != nil else { return }
        latest = fix
        latestSent = false
    }

    /// Whether the rider is on a trip now; nothing is sent while not.
    public func setRiding(_ riding: Bool) { self.riding = riding }

    /// What a tick did: sent, or why not.
    public enum TickResult: Sendable, Equatable { case sent, notRiding, notAllowed, nothingNew, insideZone, failed(String) }

    /// Sends the current position if there is a new one and it may leave the device.
    @discardableResult
    public func tick() async -> TickResult {
        guard riding else { return .notRiding }
        // Fails closed: unreadable consent sends nothing.
        guard (try? await store.effectiveConsent().livePosition) == true else { return .notAllowed }
        guard let fix = latest, !latestSent, let c = fix.coordinate else { return .nothingNew }
        // Fails closed: unreadable privacy settings send nothing.
        guard let privacy = try? await SyncSettings.privacy(store) else { return .notAllowed }
        if PrivacyFilter(privacy).isInsideZone(c) {
            latestSent = true
            return .insideZone
        }
        let live = LivePositionUpload(utcNs: fix.time?.nanosecondsSince1970, position: UploadBuilder.wire(c), speed: fix.speed)
        latestSent = true  // latest-only: whatever happens, this one is not tried again
        do {
            let answer = try await client.putLivePosition(live)
            guard (200..<300).contains(answer.status) else {
                lastOutcome = "hub answered \(answer.status)"
                return .failed(lastOutcome!)
            }
            sentCount += 1
            lastOutcome = "sent"
            return .sent
        } catch {
            lastOutcome = "hub unreachable"
            return .failed("hub unreachable: \(error)")
        }
    }

    /// Ticks every `intervalSeconds` until cancelled.
    public func run() async {
        while !Task.isCancelled {
            await tick()
            try? await Task.sleep(for: .milliseconds(Int64(intervalSeconds * 1000)))  // cancelled: the loop ends
        }
    }
}
