import ArgumentParser
import BikePathCore
import BikePathDaemon
import BikePathStore
import BikePathSync
import Foundation
import Logging
import ServiceLifecycle

/// `bikepathd sync`: send the outbox upstream (docs/sync.md), and the switches
/// that decide what may leave the device.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Send queued SOS events, confirmations, drafts and trips to the hub.",
        subcommands: [Run.self, ConsentCommand.self, PrivacyCommand.self, Status.self, Requeue.self],
        defaultSubcommand: Run.self
    )

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Sync now and keep syncing (SIGUSR1 = the network changed: retry at once).")
        @OptionGroup var options: StoreOptions
        @Option(help: "Hub base URL, e.g. https://hub.example.org (plain http only on loopback).") var hub: String
        @Option(name: .customLong("token-file"), help: "File holding the device token; must not be readable by group or others.")
        var tokenFile: String
        @Option(name: .customLong("ca-file"), help: "PEM file of a private CA to trust as well (verification stays on).")
        var caFile: String?
        @Option(help: "Seconds before a request is given up.") var timeout = 15.0
        @Option(name: .customLong("batch-size"), help: "Records per request.") var batchSize = 200
        @Flag(help: "One pass over the outbox, then exit (0 drained, 3 hub failed, 4 token refused, 5 wrong hub URL).") var once = false

        func run() async throws {
            let store = try options.open()
            let token: DeviceToken
            do { token = try DeviceToken.read(path: tokenFile) } catch { options.fail("\(error)") }
            let client: HubClient
            do {
                client = try HubClient(endpoint: HubEndpoint(baseURL: hub, token: token, caFile: caFile, requestTimeoutSeconds: timeout))
            } catch { options.fail("\(error)") }
            var syncOptions = SyncOptions()
            syncOptions.batchSize = batchSize
            let engine = SyncEngine(store: store, client: client, options: syncOptions)
            if once {
                let started = DispatchTime.now().uptimeNanoseconds
                let result = await engine.syncOnce()
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
                await client.shutdown()
                Run.report(result)
                let w = client.wire
                FileHandle.standardError.write(Data(("sync: wire: requests \(w.requests), request bodies \(w.requestBodyBytes) B gzip "
                    + "(\(w.uncompressedBodyBytes) B JSON), request headers \(w.requestHeaderBytes) B, response bodies \(w.responseBodyBytes) B, response headers \(w.responseHeaderBytes) B, "
                    + String(format: "%.3f s", seconds) + "\n").utf8))
                switch result {
                case .drained: return
                case .failed: throw ExitCode(3)
                case .unauthorized: throw ExitCode(4)
                case .misconfigured: throw ExitCode(5)
                }
            }
            // The same loop as in `run` (SyncService): SIGUSR1 from a network dispatcher
            // script retries at once; SIGTERM/SIGINT stop it between requests.
            signal(SIGUSR1, SIG_IGN)
            let service = SyncService(engine: engine) { result, wait in
                // Quiet when there was nothing to do; every send, failure and stop is reported.
                if case .drained(0, 0) = result { return }
                Run.report(result, next: wait)
            }
            let logger = Logger(label: "bikepath.sync")
            try await ServiceGroup(configuration: ServiceGroupConfiguration(
                services: [.init(service: service)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)).run()
            let stopped = await engine.stoppedResult
            await client.shutdown()
            // Already reported by the pass that stopped.
            if case .unauthorized = stopped { throw ExitCode(4) }
            if case .misconfigured = stopped { throw ExitCode(5) }
        }

        static func report(_ result: PassResult, next: Double? = nil) {
            var text: String
            switch result {
            case .drained(let sent, let quarantined): text = "sync: drained; sent \(sent), quarantined \(quarantined)"
            case .failed(let reason, let retry): text = "sync: failed: \(reason)" + (retry.map { "; hub asks to retry in \($0) s" } ?? "")
            case .unauthorized(let reason), .misconfigured(let reason): text = "sync: stopped: \(reason)"
            }
            if let next, next > 0 { text += String(format: "; next try in %.1f s", next) }
            FileHandle.standardError.write(Data((text + "\n").utf8))
        }
    }

    struct ConsentCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "consent",
            abstract: "Show or set what may be sent: trips (trips and drafts), sos, live. Everything starts off.",
            discussion: """
                The rider's consent, kept in the store, is the one switch sync reads (docs/sync.md). \
                'on' sends everything queued under the stream, including drafts confirmed and SOS raised while it was off; \
                'off' keeps the stream's queued records on the device at once. \
                A privacy.share_* key set to false in the configuration file forbids a stream (turning it on is refused), \
                and crash.enabled = true needs SOS sharing (turning it off is refused).
                """)
        @OptionGroup var options: StoreOptions
        @Argument(help: "Stream: trips, sos or live.") var stream: String?
        @Argument(help: "on or off.") var value: String?
        /// Kept for scripts: 'on' now always sends what was withheld.
        @Flag(name: .customLong("release-withheld"), help: .hidden) var releaseWithheld = false

        func run() throws {
            let store = try stream == nil ? options.openForReading() : options.open()
            if let stream {
                let streams = ["trips": SyncStream.tripsAndDrafts, "sos": .sos, "live": .livePosition]
                guard let s = streams[stream] else { throw ValidationError("stream must be trips, sos or live") }
                guard let value, value == "on" || value == "off" else { throw ValidationError("say on or off") }
                do { try ConsentPolicy.check(s, on: value == "on", file: options.fileConfiguration) } catch {
                    options.fail("\(error)")
                }
                try options.run { try SyncSettings.setConsent(store, s, value == "on") }
            }
            let c = try options.run { try SyncSettings.consent(store) }
            options.emit(c) { ConsentText.render(c) }
        }
    }

    struct PrivacyCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "privacy",
            abstract: "Show or set privacy zones and trip trimming (applied before anything is queued or sent).")
        @OptionGroup var options: StoreOptions
        @Option(name: .customLong("add-zone"), help: "NAME,LAT,LON,RADIUS_M (repeatable).") var addZone: [String] = []
        @Option(name: .customLong("remove-zone"), help: "Zone name (repeatable).") var removeZone: [String] = []
        @Option(name: .customLong("trim-seconds"), help: "Seconds cut from the start and end of every trip (default 30).") var trimSeconds: Double?
        @Option(name: .customLong("trim-meters"), help: "Metres from the start and end point that are cut (default 30).") var trimMeters: Double?

        func run() throws {
            let changes = !addZone.isEmpty || !removeZone.isEmpty || trimSeconds != nil || trimMeters != nil
            let store = try changes ? options.open() : options.openForReading()
            var p = try options.run { try SyncSettings.privacy(store) }
            for z in addZone {
                guard let zone = PrivacyZone(commaSeparated: z) else {
                    throw ValidationError("a zone is NAME,LAT,LON,RADIUS_M with a radius of \(Int(PrivacyZone.radiusRange.lowerBound))–\(Int(PrivacyZone.radiusRange.upperBound)) m: \(z)")
                }
                p.zones.removeAll { $0.name == zone.name }
                p.zones.append(zone)
            }
            p.zones.removeAll { removeZone.contains($0.name) }
            if let trimSeconds {
                guard trimSeconds >= 0, trimSeconds.isFinite else { throw ValidationError("--trim-seconds must be >= 0") }
                p.trim.seconds = trimSeconds
            }
            if let trimMeters {
                guard trimMeters >= 0, trimMeters.isFinite else { throw ValidationError("--trim-meters must be >= 0") }
                p.trim.meters = trimMeters
            }
            let settings = p
            if changes { try options.run { try SyncSettings.setPrivacy(store, settings) } }
            options.emit(settings) {
                (["trim: \(settings.trim.seconds) s and \(settings.trim.meters) m at each end"]
                    + settings.zones.map { "zone \($0.name): \($0.center.latitude), \($0.center.longitude), \($0.radiusMeters) m" })
                    .joined(separator: "\n")
            }
        }
    }

    struct Requeue: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put quarantined records back in the queue (after fixing what made the hub refuse them).")
        @OptionGroup var options: StoreOptions
        @Flag(help: "Every quarantined record.") var all = false
        @Argument(help: "The record's id (as `sync status` shows it).") var id: String?

        func validate() throws {
            guard all != (id != nil) else { throw ValidationError("give a record id or --all (not both)") }
        }

        func run() throws {
            let store = try options.open()
            let count = try options.run {
                try store.requeueQuarantined(recordID: id, utcNanoseconds: Int64(Date().timeIntervalSince1970 * 1e9))
            }
            options.emit(["requeued": count]) { "requeued \(count) record(s)" }
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "What is pending, withheld, sent and quarantined (and why), and the sync log.")
        @OptionGroup var options: StoreOptions
        @Option(help: "Sync log lines to show.") var lines = 20

        func run() throws {
            let store = try options.openForReading()
            let d = try options.run { try store.syncDiagnosis(logLines: lines) }
            let consent = try options.run { try SyncSettings.consent(store) }
            options.emit(SyncStatusReport(consent: consent, sync: d)) {
                func counts(_ m: [String: Int]) -> String { m.isEmpty ? "none" : m.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
                var out = ["consent (`bikepathd sync consent`): " + ConsentText.render(consent).replacingOccurrences(of: "\n", with: ", "),
                           "pending: \(counts(d.pending))", "withheld (consent off): \(counts(d.withheld))", "sent: \(counts(d.sent))",
                           "quarantined: \(d.quarantined.count)"]
                out += d.quarantined.map { "  \($0.kind) \($0.id): \($0.reason)" }
                out.append("sync log (newest first):")
                out += d.recentLog.map { "  \($0.outcome) \($0.kind ?? "-") \($0.id ?? "-") \($0.detail ?? "")" }
                return out.joined(separator: "\n")
            }
        }
    }
}

/// `sync status --json`: the rider's consent beside the outbox.
struct SyncStatusReport: Encodable {
    var consent: Consent
    var sync: SyncDiagnosis
}

enum ConsentText {
    static func render(_ c: Consent) -> String {
        "trips and drafts: \(c.tripsAndDrafts ? "on" : "off")\nsos: \(c.sos ? "on" : "off")\nlive position: \(c.livePosition ? "on" : "off")"
    }
}
