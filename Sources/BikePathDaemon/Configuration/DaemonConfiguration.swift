import BikePathCore

/// Everything `bikepathd run` can be told, with the documented defaults
/// (docs/configuration.md, systemd/bikepathd.toml). Plain values: the file
/// reader (`ConfigurationLoader`) and the command-line overrides
/// (`ConfigurationOverrides`) only ever produce one of these.
public struct DaemonConfiguration: Sendable, Equatable {
    public static let defaultPath = "/etc/bikepath/bikepathd.toml"

    public var gnss = GNSS()
    public var imu = IMU()
    public var store = Store()
    public var trip = Trip()
    public var obstacles = Obstacles()
    public var crash = Crash()
    public var privacy = Privacy()
    public var sync = Sync()
    public var milestones = Milestones()
    public var log = Log()
    public var status = Status()
    public var review = Review()

    /// Creates the documented defaults (docs/configuration.md).
    public init() {}

    /// `[gnss]`: where gpsd listens.
    public struct GNSS: Sendable, Equatable {
        /// gpsd's host and port.
        public var host = "localhost"
        public var port = 2947
    }

    /// `[imu]`: which IIO context and device to read, and at what rate (Hz).
    public struct IMU: Sendable, Equatable {
        /// libiio context URI: `local:` on the device, `ip:HOST[:PORT]` for iiod.
        public var uri = "local:"
        /// Device name or id; empty: the first device with accelerometer channels.
        public var device = ""
        public var rateHz = 100.0
    }

    /// `[store]`: the database file, its disk budget (MB) and how often samples are committed (s).
    public struct Store: Sendable, Equatable {
        /// Under systemd's StateDirectory=bikepath.
        public var path = "/var/lib/bikepath/bikepath.sqlite"
        public var budgetMB = 512.0
        /// Samples are committed in batches at most this far apart (what a power cut can lose).
        public var commitIntervalS = 1.0
    }

    /// `[trip]`: when a trip starts (cycling seconds and metres) and ends (seconds without
    /// cycling).
    public struct Trip: Sendable, Equatable {
        /// A trip starts after this much cycling time and distance (the chain's defaults).
        public var startAfterS = chainDefaults.tripStartCyclingSeconds
        public var startAfterM = chainDefaults.tripStartCyclingMeters
        /// …and ends after this long without cycling.
        public var endAfterS = chainDefaults.tripEndInactivitySeconds
    }

    /// Defaults are the chain's own (`chainDefaults`), so `run`, `record` and `replay`
    /// detect alike when the file is silent.
    public struct Obstacles: Sendable, Equatable {
        public var enabled = true
        /// No detection below this speed (pushing, standing, mounting).
        public var minSpeedMps = chainDefaults.obstacleMinSpeed
        /// A candidate's peak over the RMS of the road texture around it.
        public var thresholdSigmas = Double(chainDefaults.obstacle.contextSigmas)
        /// Smallest vertical acceleration peak reported, m/s² (×0.7 with the two-wheel echo).
        public var minPeakMps2 = Double(chainDefaults.obstacle.reportPeak)
        /// Front-to-rear axle distance, m: where the rear wheel's echo of a hit is looked for.
        public var wheelbaseM = chainDefaults.obstacle.wheelbaseMeters
        /// Detections closer than this are one obstacle.
        public var mergeM = chainDefaults.obstacleMergeMeters
        /// Detected candidates a draft asks the rider about, best first (ReviewBudget).
        public var reviewBudget = ReviewBudget.defaultBudget
    }

    /// `[crash]`: crash detection and SOS, off unless enabled.
    public struct Crash: Sendable, Equatable {
        /// Opt-in: no SOS is ever raised unless this is true.
        public var enabled = false
    }

    /// One privacy zone (`[[privacy.zones]]`): a circle in degrees and metres.
    public struct Zone: Sendable, Equatable, Codable {
        public var name: String
        public var lat: Double
        public var lon: Double
        public var radiusM: Double
        /// Creates a zone from its fields.
        public init(name: String, lat: Double, lon: Double, radiusM: Double) {
            self.name = name
            self.lat = lat
            self.lon = lon
            self.radiusM = radiusM
        }
        enum CodingKeys: String, CodingKey { case name, lat, lon, radiusM = "radius_m" }
    }

    /// `[privacy]`: zones, the trim of every uploaded trip, and the operator's ceilings on consent.
    public struct Privacy: Sendable, Equatable {
        /// Circles inside which no position leaves the device.
        public var zones: [Zone] = []
        /// Cut from the start and the end of every uploaded trip: a point is kept
        /// once the rider is both this long and this far from the start (and the end).
        public var trimS = 30.0
        public var trimM = 30.0
        /// An operator's ceiling on the rider's consent (docs/sync.md): false keeps
        /// the stream off whatever the rider says; absent (nil) or true leaves the
        /// choice to the rider (`bikepathd sync consent`), whose consent in the
        /// store is the one switch sync reads.
        public var shareTrips: Bool?
        public var shareSOS: Bool?
        public var shareLivePosition: Bool?

        /// The file's ceiling for one stream; nil when the file leaves it to the rider.
        public func ceiling(_ stream: SyncStream) -> Bool? {
            switch stream {
            case .tripsAndDrafts: shareTrips
            case .sos: shareSOS
            case .livePosition: shareLivePosition
            }
        }

        /// The key that holds a stream's ceiling, for messages.
        public static func key(_ stream: SyncStream) -> String {
            switch stream {
            case .tripsAndDrafts: ConfigurationKey.path(\.privacy.shareTrips)
            case .sos: ConfigurationKey.path(\.privacy.shareSOS)
            case .livePosition: ConfigurationKey.path(\.privacy.shareLivePosition)
            }
        }
    }

    /// `[sync]`: the hub, the token file, an extra CA and the sync interval (s); no hub URL, no
    /// sync.
    public struct Sync: Sendable, Equatable {
        /// Empty: no sync at all.
        public var hubURL = ""
        public var tokenFile = "/etc/bikepath/hub-token"
        /// Extra CA certificate for a self-hosted hub; empty: the system's.
        public var caFile = ""
        public var intervalS = 300.0
    }

    /// `[milestones]`: a milestone every this many kilometres of lifetime distance.
    public struct Milestones: Sendable, Equatable {
        public var everyKm = 100.0
    }

    /// `[log]`: the least severe level written.
    public struct Log: Sendable, Equatable {
        public var level = LogLevelName.info
    }

    /// `[review]`: the rider's review page.
    public struct Review: Sendable, Equatable {
        /// `HOST:PORT` the rider's review page listens on (docs/review.md); empty: no page.
        /// Anything but loopback lets the Wi-Fi reach it (pairing still guards every change).
        public var listen = ""
        /// A raster tile URL template the phone loads the street map from (`{z}`, `{x}`, `{y}`); empty: none.
        /// The tile server learns the phone's address and where the ride went (docs/review.md).
        public var tilesURL = ""
        /// Who made the tiles, shown under the map (OpenStreetMap's licence asks for it).
        public var tilesAttribution = ""
        /// An MBTiles file (raster) on the device, served by the page itself; takes precedence over `tilesURL`.
        public var mbtiles = ""

    }

    /// `[status]`: the status socket's path.
    public struct Status: Sendable, Equatable {
        /// Under systemd's RuntimeDirectory=bikepath; mode 0660.
        public var socket = "/run/bikepath/status.sock"
    }
}

/// The names `--log-level` and `[log] level` accept (swift-log's levels).
public enum LogLevelName: String, Sendable, Equatable, Codable, CaseIterable {
    case trace, debug, info, notice, warning, error, critical
}

/// The chain's defaults (its obstacle detector is `.bicycle`): the file's trip and
/// obstacle keys default to them rather than to copies of their values.
private let chainDefaults = PipelineConfiguration()
