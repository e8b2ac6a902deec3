import Foundation

/// Where the tests find the repository's files and the shared datasets.
public enum Paths {
    public static let root = packageRoot
    /// The sensor tests' fixtures (gpsd logs, GoPro CSVs), read in place by several targets.
    public static let fixtures = root + "/Tests/BikePathSensorsTests/Fixtures"
    /// ../shared/datasets beside the checkout (not in the repository; CI has it).
    public static let datasets = root + "/../shared/datasets"
    public static var hasSharedDatasets: Bool { access(datasets + "/allthedocks/GX010056-accl.csv", R_OK) == 0 }

    /// Where a browser test writes the screenshot NAME that the docs show: into docs/ only
    /// when asked (`BIKEPATH_SCREENSHOTS=docs scripts/test`), else into .build/screenshots/, so
    /// that a test run leaves the work tree as it found it (every run rewrote the PNGs: a
    /// tooltip's pixels differ between runs).
    public static func screenshot(_ name: String) -> String {
        if ProcessInfo.processInfo.environment["BIKEPATH_SCREENSHOTS"] == "docs" { return root + "/docs/" + name }
        let directory = root + "/.build/screenshots"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory + "/" + name
    }
}

/// The real extract and osmium, where the tests find them: ../shared/datasets/osm/central-london.osm.pbf
/// (© OpenStreetMap contributors, ODbL 1.0; the Valhalla routing engine's benchmark extract,
/// as the datasets' README says). The hub's import tests and the device's sync of named paths read it.
public enum RealExtract {
    public static let central = Paths.datasets + "/osm/central-london.osm.pbf"
    public static var available: Bool { access(central, R_OK) == 0 && access("/usr/bin/osmium", X_OK) == 0 }
}
