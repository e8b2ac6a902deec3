import ArgumentParser
import BikePathCore
import BikePathDaemon
import BikePathReview
import BikePathStore
import Foundation

/// `bikepathd drafts`: the rider reviews closed trips before anything is published.
struct DraftsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drafts",
        abstract: "Review trip drafts: nothing is published until you confirm it.",
        discussion: """
            A pending draft is never published. With trip sharing on (`bikepathd sync consent trips on`) and a hub \
            configured, its trimmed, zone-free copy and its trip totals go to this device's private area on the hub \
            (for review elsewhere; never published, never shown to anyone else); a confirmed draft is published.
            """,
        subcommands: [List.self, Show.self, Confirm.self, Reject.self, Edit.self]
    )

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List drafts, oldest first.")
        @OptionGroup var options: StoreOptions
        @Option(help: "Only drafts in this state (\(DraftState.allCases.map(\.rawValue).joined(separator: ", "))).")
        var state: DraftState?

        func run() throws {
            let store = try options.openForReading()
            let drafts = try options.run { try store.listDrafts(state: state) }
            let all = state == nil ? drafts : try options.run { try store.listDrafts() }
            let numbers = Dictionary(uniqueKeysWithValues: all.enumerated().map { ($1.id, $0 + 1) })
            options.emit(DraftJSON.list(drafts)) {
                drafts.isEmpty ? "no drafts" : drafts.map { d in
                    // The number is what `show`, `confirm`, `edit` … accept instead of the id (with --state, the unfiltered list's).
                    String(format: "%3d  ", numbers[d.id] ?? 0) + "\(d.id)  \(ReviewFormat.dateAndTime(d.startUTCNanoseconds))  "
                        + "\(d.state.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0))  "
                        + String(format: "%7.2f km", d.distanceMeters / 1000)
                        + "  \(d.obstacles) obstacle(s), \(d.heldBack) held back  path: \(d.pathStatus?.rawValue ?? "-")"
                }.joined(separator: "\n")
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one draft: trip, obstacles, road quality, edits.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "Draft: its id, a unique prefix of it, or its number in `drafts list`.") var reference: String

        func run() throws {
            let store = try options.openForReading()
            let d = try options.run { try store.draft(try store.resolveDraftID(reference)) }
            options.emit(DraftJSON.draft(d)) { DraftText.render(d) }
        }
    }

    struct Confirm: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Confirm a pending draft: it is frozen and hash-chained, and published when trip sharing is on and a hub is set.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "Draft: its id, a unique prefix of it, or its number in `drafts list`.") var reference: String

        func run() throws {
            let store = try options.open()
            let d = try options.run { try store.confirmDraft(try store.resolveDraftID(reference)) }
            let held = try options.run { try Self.heldBack(store: store, configuration: options.fileConfiguration) }
            options.emit(DraftJSON.Transition(id: d.id, state: d.state.rawValue, sync: held ?? "queued")) {
                held.map { "draft \(d.id) confirmed; it stays on this device: \($0)" } ?? "draft \(d.id) confirmed and queued for sync"
            }
        }

        /// Why a confirmed draft will not leave the device yet, or nil when sync will send it.
        static func heldBack(store: Store, configuration: DaemonConfiguration) throws -> String? {
            if configuration.sync.hubURL.isEmpty { return "no hub is configured (sync.hub_url)" }
            if configuration.privacy.shareTrips == false { return "privacy.share_trips is false in the configuration file" }
            if try !store.consent().tripsAndDrafts { return "trip sharing is off — `bikepathd sync consent trips on` sends it" }
            return nil
        }
    }

    struct Reject: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Reject a pending draft: it will never be sent.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "Draft: its id, a unique prefix of it, or its number in `drafts list`.") var reference: String

        func run() throws {
            let store = try options.open()
            let id = try options.run { try store.resolveDraftID(reference) }
            try options.run { try store.rejectDraft(id) }
            options.emit(DraftJSON.Transition(id: id, state: DraftState.rejected.rawValue)) { "draft \(id) rejected" }
        }
    }

    struct Edit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Edit a pending draft.",
            discussion: """
                Edits are applied in this order: --set-kind, --drop, --add, --path-status.
                  --set-kind OBSTACLE=KIND     change a candidate's type
                  --drop OBSTACLE              drop a candidate
                  --add KIND@SECONDS           add a missed obstacle SECONDS after the trip's start (position from the track)
                  --add KIND@HH:MM[:SS]        add a missed obstacle at that clock time, as `drafts show` prints it
                  --add KIND@LAT,LON           add a missed obstacle at a position
                  --path-status STATUS         rate the path (\(PathStatus.allCases.map(\.rawValue).joined(separator: ", ")))
                OBSTACLE is the id shown by `drafts show`, a unique prefix of it, or its number there (#1).
                Obstacle kinds: \(ObstacleKind.allCases.map(\.rawValue).joined(separator: ", ")).
                """)
        @OptionGroup var options: StoreOptions
        @Argument(help: "Draft: its id, a unique prefix of it, or its number in `drafts list`.") var reference: String
        @Option(name: .customLong("set-kind"), help: "OBSTACLE=KIND") var setKind: [String] = []
        @Option(help: "OBSTACLE") var drop: [String] = []
        @Option(help: "KIND@SECONDS, KIND@HH:MM[:SS] or KIND@LAT,LON") var add: [String] = []
        @Option(name: .customLong("path-status"), help: "Path status.") var pathStatus: PathStatus?

        func validate() throws {
            if setKind.isEmpty && drop.isEmpty && add.isEmpty && pathStatus == nil {
                throw ValidationError("nothing to edit: give --set-kind, --drop, --add or --path-status")
            }
        }

        func run() throws {
            let store = try options.open()
            let id = try options.run { try store.resolveDraftID(reference) }
            let draft = try options.run { try store.draft(id) }
            let edits = try options.run { try parseEdits(draft) { try store.resolveObstacleID($0, inDraft: id) } }
            for edit in edits { try options.run { _ = try store.editDraft(id, edit) } }
            let d = try options.run { try store.draft(id) }
            options.emit(DraftJSON.draft(d)) { "draft \(id): \(edits.count) edit(s) applied\n" + DraftText.render(d) }
        }

        /// `obstacle` turns what the rider typed (id, prefix or `#N`) into the obstacle's id.
        private func parseEdits(_ draft: DraftDocument, obstacle: (String) throws -> String) throws -> [DraftEdit] {
            let tripStart = SampleTime(nanoseconds: draft.trip.startTimeNanoseconds)
            var edits: [DraftEdit] = []
            for item in setKind {
                let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let kind = ObstacleKind(rawValue: parts[1]) else {
                    throw ValidationError("--set-kind wants OBSTACLE=KIND with KIND one of \(ObstacleKind.allCases.map(\.rawValue).joined(separator: ", ")); got '\(item)'")
                }
                edits.append(.setObstacleKind(obstacleID: try obstacle(parts[0]), kind))
            }
            edits += try drop.map { .dropObstacle(obstacleID: try obstacle($0)) }
            for item in add {
                let parts = item.split(separator: "@", maxSplits: 1).map(String.init)
                guard parts.count == 2, let kind = ObstacleKind(rawValue: parts[0]) else {
                    throw ValidationError("--add wants KIND@SECONDS or KIND@LAT,LON; got '\(item)'")
                }
                let where_ = parts[1].split(separator: ",").map { Double($0) }
                if where_.count == 2, let lat = where_[0], let lon = where_[1], abs(lat) <= 90, abs(lon) <= 180 {
                    edits.append(.addObstacle(kind, time: nil, coordinate: Coordinate(latitude: lat, longitude: lon)))
                } else if where_.count == 1, let seconds = where_[0], seconds.isFinite {
                    edits.append(.addObstacle(kind, time: tripStart + seconds, coordinate: nil))
                } else if let start = draft.trip.startUTCNanoseconds,
                          let utc = ReviewFormat.utcNanoseconds(clock: parts[1], onDayOf: start),
                          let time = draft.sampleNanoseconds(atUTC: utc) {
                    // A clock time, as `drafts show` prints it: what the rider read off a watch.
                    edits.append(.addObstacle(kind, time: SampleTime(nanoseconds: time), coordinate: nil))
                } else {
                    throw ValidationError("--add wants KIND@SECONDS, KIND@HH:MM[:SS] or KIND@LAT,LON (degrees); got '\(item)'")
                }
            }
            if let pathStatus { edits.append(.setPathStatus(pathStatus)) }
            return edits
        }
    }
}

extension DraftState: ExpressibleByArgument {}
extension PathStatus: ExpressibleByArgument {}

enum DraftText {
    static func render(_ d: DraftDocument) -> String {
        let s = d.trip.statistics
        var lines = [
            "draft \(d.id)  state: \(d.state.rawValue)  path status: \(d.pathStatus?.rawValue ?? "not rated")",
            "trip \(d.trip.id)" + (d.trip.closedBy == "recovery" ? "  (closed after a restart)" : ""),
            String(format: "  %.2f km, %.0f s moving of %.0f s, max %.1f km/h, CO2 avoided %.0f g, %d path points",
                   s.distanceMeters / 1000, s.movingSeconds, s.elapsedSeconds, s.maxSpeed * 3.6, s.co2AvoidedGrams, d.path.count),
            "obstacles:",
        ]
        let asked = d.obstacles.filter { !$0.heldBack }
        if asked.isEmpty { lines.append("  none") }
        for o in asked { lines.append(obstacleLine(o, d)) }
        let held = d.obstacles.filter(\.heldBack)
        if !held.isEmpty {
            lines.append("held back: \(held.count) low-ranked candidate(s), not asked about (kept for road quality; review budget obstacles.review_budget)")
        }
        lines.append("road quality: \(d.roadQuality.count) stretch(es)")
        for r in d.roadQuality {
            lines.append(String(format: "  %.0f m  roughness %.2f  %@", r.lengthMeters, r.roughness, r.status.rawValue))
        }
        if !d.edits.isEmpty {
            lines.append("edits:")
            lines += d.edits.map { "  \($0.action) \($0.detail)" }
        }
        return lines.joined(separator: "\n")
    }

    /// `#1 pothole …  detected  severity 0.62 × confidence 0.80`, or `rider` for the rider's own.
    private static func obstacleLine(_ o: DraftDocument.Obstacle, _ d: DraftDocument) -> String {
        let at = o.coordinate.map { String(format: "%.6f,%.6f", $0.latitude, $0.longitude) } ?? "no position"
        let offset = o.timeNanoseconds.map { String(format: "+%.1fs", Double($0 - d.trip.startTimeNanoseconds) / 1e9) } ?? ""
        // Clock time and distance along the path: what the rider remembers of the spot.
        let clockTime = o.timeNanoseconds.flatMap(d.utcNanoseconds(atSampleTime:)).map { " at " + ReviewFormat.clock($0) } ?? ""
        let along = o.coordinate.flatMap(d.distanceAlongPath(to:)).map { String(format: ", %.2f km along the path", $0 / 1000) } ?? ""
        let t = offset + clockTime + along
        let rank = o.reviewRank.map { "#\($0) " } ?? ""
        let figures = o.origin == "detected"
            ? String(format: "  severity %.2f × confidence %.2f, strength %.2f", o.severity, o.confidence, o.strength)
            : "  (the rider's own)"
        return "  \(rank)\(o.id)  \(o.kind.rawValue)  \(at) \(t)  \(o.origin)\(figures)\(o.dropped ? "  DROPPED" : "")"
    }
}
