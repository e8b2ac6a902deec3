import BikePathCore
import Foundation
import GRDB
@testable import BikePathStore

/// A fresh directory under the system temp dir, removed by `cleanup()`.
struct TempDir {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "bikepath-store-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    func file(_ name: String) -> String { path + "/" + name }
    func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

var isRoot: Bool { getuid() == 0 }
var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

/// The package root, found from this file's location.
let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// The bikepathd executable that `swift test` built next to the test bundle.
func bikepathdPath() -> String? {
    let candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("bikepathd").path,
        packageRoot + "/.build/debug/bikepathd",
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Runs a command to completion and returns its exit status, stdout and stderr.
@discardableResult
func runProcess(_ path: String, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
}

/// Writes a whole synthetic stream through a writer and flushes.
func replay(_ store: Store, trips: Int, seconds: Int, policy: WriterPolicy = WriterPolicy()) throws -> StoreWriter {
    let writer = try StoreWriter(store: store, policy: policy)
    for (i, item) in SyntheticRides.stream(trips: trips, secondsPerTrip: seconds).enumerated() {
        try writer.append(item.output, at: item.now, position: Int64(i))
    }
    try writer.flush()
    return writer
}

extension Store {
    func count(_ sql: String) throws -> Int {
        try queue.read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }
}
