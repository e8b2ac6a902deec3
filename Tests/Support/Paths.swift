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
