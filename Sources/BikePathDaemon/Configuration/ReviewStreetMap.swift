import BikePathReview
import BikePathStore
import Logging
import ServiceLifecycle

extension DaemonConfiguration.Review {
    /// The street map these keys ask for: the MBTiles file when set, else the tile URL, else none.
    /// - Throws: `MBTiles.Problem` when the file cannot be used.
    public func streetMap() throws(MBTiles.Problem) -> StreetMap {
        if !mbtiles.isEmpty { return .mbtiles(try MBTiles(path: mbtiles), attribution: tilesAttribution) }
        if !tilesURL.isEmpty {
            // 19: the deepest level OpenStreetMap's own tile servers draw.
            return .tiles(template: tilesURL, attribution: tilesAttribution, maxZoom: 19)
        }
        return .none
    }
}

extension Daemon {
    /// The street map `review` asks for; a file that cannot be used is logged and the page
    /// runs without a street map (the page is a helper of `run`: it must not stop the daemon).
    public static func streetMap(_ review: DaemonConfiguration.Review, logger: Logger) -> StreetMap {
        do {
            return try review.streetMap()
        } catch {
            logger.error("review page without a street map: \(error); check \(ConfigurationKey.path(\.review.mbtiles))")
            return .none
        }
    }
}

extension Daemon {
    /// `bikepathd review`: the review page of `store` alone (no daemon running), until SIGTERM/SIGINT.
    public static func serveReview(store: Store, address: ReviewAddress, configuration: DaemonConfiguration) async throws {
        let logger = Logger(label: "bikepathd-review")
        try await ServiceGroup(
            services: [
                ReviewService(
                    store: store, address: address, addressSetBy: "--listen or \(ConfigurationKey.path(\.review.listen))",
                    publishing: configuration.publishing,
                    streetMap: streetMap(configuration.review, logger: logger), logger: logger)
            ],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger
        ).run()
    }
}
