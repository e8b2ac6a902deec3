import ArgumentParser
import BikePathAPI
import BikePathCLI
import BikePathCore
import BikePathDaemon
import BikePathStore
import BikePathSync
import Foundation

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
        @Option(
            name: .customLong(ConfigurationKey.flag(\.sync.hubURL)),
            help:
                "Hub base URL, e.g. https://hub.example.org (plain http only on loopback; default: \(ConfigurationKey.path(\.sync.hubURL)))."
        )
        var hub: String?
        @Option(
            name: .customLong(ConfigurationKey.flag(\.sync.tokenFile)),
            help:
                "File holding the device token; must not be readable by group or others (default: \(ConfigurationKey.path(\.sync.tokenFile)))."
        )
        var tokenFile: String?
        @Option(
            name: .customLong(ConfigurationKey.flag(\.sync.caFile)),
            help: "PEM file of a private CA to trust as well; verification stays on (default: \(ConfigurationKey.path(\.sync.caFile))).")
        var caFile: String?
        @Option(help: "Seconds before a request is given up.") var timeout = HubEndpoint.defaultRequestTimeoutSeconds
        @Option(name: .customLong("batch-size"), help: "Records per request (the hub takes up to \(SyncOptions.batchSizes.upperBound)).")
        var batchSize = SyncOptions().batchSize
        @Flag(help: "One pass over the outbox, then exit (0 drained, 3 hub failed, 4 token refused, 5 wrong hub URL).") var once = false

        func validate() throws {
            do { try SyncOptions.check(batchSize: batchSize) } catch { throw ValidationError("--batch-size: \(error)") }
        }

        func run() async throws {
            let store = try await options.open()
            // The file's [sync] keys with the flags on top, by the rule `run` uses (`--config` was once ignored here).
            let settings: DaemonConfiguration
            do {
                settings = try options.fileConfiguration.merging(
                    ConfigurationOverrides(hubURL: hub, hubTokenFile: tokenFile, hubCAFile: caFile))
            } catch { throw failWithConfigurationProblems(error) }
            let endpoint: HubEndpoint
            do { endpoint = try settings.sync.endpoint(requestTimeoutSeconds: timeout) } catch HubSettingsError.noHub {
                throw ValidationError(HubSettingsError.noHub.description)
            } catch { options.fail("\(error)") }
            let sync: StandaloneSync
            do { sync = try StandaloneSync(store: store, endpoint: endpoint, batchSize: batchSize) } catch { options.fail("\(error)") }
            let status = try await sync.run(once: once)
            if status != 0 { throw ExitCode(status) }
        }
    }

    struct ConsentCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "consent",
            abstract: "Show or set what may be sent: trips (trips and drafts), sos, live. Everything starts off.",
            discussion: """
                The rider's consent, kept in the store, is the one switch sync reads (docs/sync.md). \
                'on' sends everything queued under the stream, including drafts confirmed and SOS raised while it was off; \
                'off' keeps the stream's queued records on the device at once. \
                A privacy.share_* key set to false in the configuration file forbids a stream (turning it on is refused); \
                nothing but this command turns a stream on. With \(ConfigurationKey.path(\.crash.enabled)) = true and SOS sharing off, \
                an SOS stays on this device (run, status, diagnose and this command say so).
                """)
        @OptionGroup var options: StoreOptions
        @Argument(help: "Stream: trips, sos or live.") var stream: String?
        @Argument(help: "on or off.") var value: String?
        /// Kept for scripts: 'on' now always sends what was withheld.
        @Flag(name: .customLong("release-withheld"), help: .hidden) var releaseWithheld = false

        func run() async throws {
            let store = try await stream == nil ? options.openForReading() : options.open()
            if let stream {
                let streams = ["trips": SyncStream.tripsAndDrafts, "sos": .sos, "live": .livePosition]
                guard let s = streams[stream] else { throw ValidationError("stream must be trips, sos or live") }
                guard let value, value == "on" || value == "off" else { throw ValidationError("say on or off") }
                do { try ConsentPolicy.check(s, on: value == "on", file: options.fileConfiguration) } catch {
                    options.fail("\(error)")
                }
                try await options.run { try SyncSettings.setConsent(store, s, value == "on") }
            }
            let c = try await options.run { try await SyncSettings.consent(store) }
            // The rider's choice stands; with crash detection on, say what it means for an SOS.
            if let warning = ConsentPolicy.sosStaysOnDevice(consent: c, crashDetection: options.fileConfiguration.crash.enabled) {
                standardErrorLine("warning: \(warning)")
            }
            options.emit(ConsentDocumentJSON(c)) { SyncText.consent(c) }
        }
    }

    struct PrivacyCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "privacy",
            abstract: "Show or set privacy zones and trip trimming (applied before anything is queued or sent).")
        @OptionGroup var options: StoreOptions
        @Option(name: .customLong("add-zone"), help: "NAME,LAT,LON,RADIUS_M (repeatable).") var addZone: [String] = []
        @Option(name: .customLong("remove-zone"), help: "Zone name (repeatable).") var removeZone: [String] = []
        @Option(name: .customLong("trim-seconds"), help: "Seconds cut from the start and end of every trip (default 30).") var trimSeconds:
            Double?
        @Option(name: .customLong("trim-meters"), help: "Metres from the start and end point that are cut (default 30).") var trimMeters:
            Double?

        func run() async throws {
            let edit = PrivacyEdit(addZones: addZone, removeZones: removeZone, trimSeconds: trimSeconds, trimMeters: trimMeters)
            let store = try await edit.isEmpty ? options.openForReading() : options.open()
            let settings = try await options.run { try edit.applied(to: try await SyncSettings.privacy(store)) }
            if !edit.isEmpty { try await options.run { try SyncSettings.setPrivacy(store, settings) } }
            options.emit(PrivacyJSON(settings)) { SyncText.privacy(settings) }
        }
    }

    struct Requeue: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Put quarantined records back in the queue (after fixing what made the hub refuse them).")
        @OptionGroup var options: StoreOptions
        @Flag(help: "Every quarantined record.") var all = false
        @Argument(help: "The record's id (as `sync status` shows it).") var id: String?

        func validate() throws {
            guard all != (id != nil) else { throw ValidationError("give a record id or --all (not both)") }
        }

        func run() async throws {
            let store = try await options.open()
            let count = try await options.run {
                try store.requeueQuarantined(recordID: id, utcNanoseconds: Int64(Date().timeIntervalSince1970 * 1e9))
            }
            options.emit(RequeueJSON(requeued: count)) { "requeued \(count) record(s)" }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "What is pending, withheld, sent and quarantined (and why), and the sync log.")
        @OptionGroup var options: StoreOptions
        @Option(help: "Sync log lines to show.") var lines = 20

        func run() async throws {
            let store = try await options.openForReading()
            let d = try await options.run { try store.syncDiagnosis(logLines: lines) }
            let report = SyncStatusReport(consent: try await options.run { try await SyncSettings.consent(store) }, sync: d)
            options.emit(SyncStatusJSON(report)) { SyncText.status(report) }
        }
    }
}
