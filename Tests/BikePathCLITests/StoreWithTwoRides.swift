import BikePathTestSupport
import Foundation
import Testing

/// The bikepathd executable that `swift test` built next to the test bundle.
func bikepathdPath() -> String? { builtExecutable("bikepathd") }

/// The bikepathd binary and a store of two synthetic 300 s rides made by
/// `BikePathBench store-replay`, as a rider's CLI finds it.
func storeWithTwoRides() throws -> (binary: String, dir: TempDir, db: String) {
    let binary = try #require(bikepathdPath(), "bikepathd must be built next to the tests")
    let bench = try #require(benchExecutablePath(), "BikePathBench must be built next to the tests")
    let dir = try TempDir()
    let db = dir.file("s.db")
    let result = try runProcess(bench, ["store-replay", "--db", db, "--trips", "2", "--seconds-per-trip", "300"])
    #expect(result.status == 0, "\(result.err)")
    return (binary, dir, db)
}
