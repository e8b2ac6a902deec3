import Foundation

/// Where the tests find the repository's files and the shared datasets.
public enum Paths {
    public static let root = packageRoot
    /// The sensor tests' fixtures (gpsd logs, GoPro CSVs), read in place by several targets.
    public static let fixtures = root + "/Tests/BikePathSensorsTests/Fixtures"
    /// ../shared/datasets beside the checkout (not in the repository; CI has it).
    public static let datasets = root + "/../shared/datasets"
    public static var hasSharedDatasets: Bool { access(datasets + "/allthedocks/GX010056-accl.csv", R_OK) == 0 }
}

/// The real extract and osmium, where the tests find them: ../shared/datasets/osm/central-london.osm.pbf
/// (© OpenStreetMap contributors, ODbL 1.0; the Valhalla routing engine's benchmark extract,
/// as the datasets' README says). The hub's import tests and the device's sync of named paths read it.
public enum RealExtract {
    public static let central = Paths.datasets + "/osm/central-london.osm.pbf"
    public static var available: Bool { access(central, R_OK) == 0 && access("/usr/bin/osmium", X_OK) == 0 }
}
