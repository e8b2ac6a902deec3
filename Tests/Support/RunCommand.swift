import Foundation

/// How a command ended and what it printed.
public struct CommandOutput: Sendable {
    /// The exit code; 128 + the signal when a signal ended it.
    public var status: Int32
    public var out: String
    public var err: String
}

/// A command that was still running at its deadline: killed, and the test fails naming it.
public struct CommandTimedOut: Error, CustomStringConvertible {
    public let command: [String]
    public let seconds: Double
    public let out: String
    public let err: String
    public var description: String {
        "\(command.joined(separator: " ")) still ran after \(Int(seconds)) s and was killed; stdout: \(out.suffix(2000)); stderr: \(err.suffix(2000))"
    }
}

/// Runs a command to its end and returns its status, stdout and stderr.
///
/// Spawned as `ChildProcess` (posix_spawn, signals unblocked), its output in files (no pipe
/// to fill, no reader thread to block) and reaped with waitpid. Foundation's `Process` and
/// `waitUntilExit`, which this replaced, can miss a child's exit when called from worker
/// threads after a few hundred runs; the CI run of 2026-11-26 hung until its 90 minutes were
/// up. A command still running after `timeout` seconds is killed (SIGKILL) and
/// `CommandTimedOut` thrown, so a stuck child fails its test instead of the whole run.
public func runCommand(
    _ executable: String, _ arguments: [String], timeout: Double = 600
) throws -> CommandOutput {
    let scratch = try TempDir()
    defer { scratch.cleanup() }
    let outFile = URL(fileURLWithPath: scratch.file("out")), errFile = URL(fileURLWithPath: scratch.file("err"))
    let child = try ChildProcess(executable, arguments, output: outFile, errorOutput: errFile)
    let status = child.waitForExit(timeout: timeout)
    let read = { (file: URL) in String(decoding: (try? Data(contentsOf: file)) ?? Data(), as: UTF8.self) }
    guard let status else {
        child.stop(signal: SIGKILL)
        throw CommandTimedOut(command: [executable] + arguments, seconds: timeout, out: read(outFile), err: read(errFile))
    }
    let output = CommandOutput(status: status, out: read(outFile), err: read(errFile))
    // Every `--json` output of bikepathd a test produces is checked for the key case.
    if arguments.contains("--json"), URL(fileURLWithPath: executable).lastPathComponent == "bikepathd" {
        JSONKeyCase.expectSnakeCase(output.out, from: ([executable] + arguments).joined(separator: " "))
    }
    return output
}
