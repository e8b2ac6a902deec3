import Foundation

/// Helpers the test targets share for running the built executables as a user would.

/// The package root, found from this file's location (Tests/Support/…).
public let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
}()

/// An executable that `swift build --build-tests` built next to the test bundle.
public func builtExecutable(_ name: String) -> String? {
    let candidates = [
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path,
        packageRoot + "/.build/debug/" + name,
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// Runs a command to completion and returns its exit status, stdout and stderr
/// (`runCommand`: killed and thrown after `timeout` seconds).
@discardableResult
public func runProcess(_ path: String, _ arguments: [String], timeout: Double = 600) throws -> (status: Int32, out: String, err: String) {
    let result = try runCommand(path, arguments, timeout: timeout)
    return (result.status, result.out, result.err)
}

/// A fresh directory under /tmp, removed by `cleanup()`: the one temporary
/// directory of every test target. Its path is short (`/tmp/bp-XXXXXX`, 14
/// bytes) because Unix socket paths inside it are limited to 107 bytes.
public struct TempDir: Sendable {
    public let path: String

    public init() throws {
        var template = Array("/tmp/bp-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        path = String(cString: made)
    }

    public var url: URL { URL(fileURLWithPath: path, isDirectory: true) }
    public func file(_ name: String) -> String { path + "/" + name }
    public func cleanup() { try? FileManager.default.removeItem(atPath: path) }
}

/// `BikePathBench`, which also writes the synthetic stores the store tests
/// and the kill test start from (`store-replay`): generators stay out of bikepathd.
public func benchExecutablePath() -> String? { builtExecutable("BikePathBench") }

/// A loopback TCP port nobody listens on right now, picked by the kernel.
public func freeLoopbackPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
    _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
    return Int(UInt16(bigEndian: addr.sin_port))
}
