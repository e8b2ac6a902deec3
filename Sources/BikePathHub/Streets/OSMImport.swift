import Foundation

/// Reads an `.osm.pbf` extract into a `StreetExtract` through Debian's `osmium` (osmium-tool):
/// `osmium add-locations-to-ways` puts each node's position on the ways that use it
/// (untagged nodes dropped), piped into `osmium tags-filter -R -f opl` keeping the ways with
/// `highway` and the named nodes and ways; the OPL lines go through `StreetExtract.Builder`.
/// In this order neither needs much memory: filtering first, tags-filter kept the ids of
/// every node the kept ways use and took 1.5 GB for the 0.2 MB east London extract; this
/// way round each took 10-16 MB. The one import path of both stores: nothing here knows
/// which store gets the result.
public enum OSMImport {
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case unreadable(path: String, why: String)
        /// The file does not start as an OSM PBF file does.
        case notPBF(path: String)
        case osmiumMissing(searched: String)
        case osmiumFailed(command: String, status: Int32, stderr: String)
        case malformed(OPLReader.Error)
        /// Nothing in the extract is a street a bicycle may use.
        case noStreets(path: String)

        public var description: String {
            switch self {
            case .unreadable(let path, let why): "cannot read \(path): \(why)"
            case .notPBF(let path): "\(path) is not an OpenStreetMap PBF file (.osm.pbf): it has no OSMHeader block"
            case .osmiumMissing(let searched):
                "osmium is not installed (looked in PATH=\(searched)); install Debian's osmium-tool (apt-get install osmium-tool)"
            case .osmiumFailed(let command, let status, let stderr): "\(command) failed (exit \(status)): \(stderr)"
            case .malformed(let error): "osmium's output is not OPL: \(error)"
            case .noStreets(let path): "\(path) holds no street a bicycle may use (no way with a kept highway class)"
            }
        }
    }

    /// The whole file read, or a problem; nothing is written anywhere.
    public static func read(path: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(Problem)
        -> StreetExtract
    {
        try checkPBF(path)
        let searched = environment["PATH"] ?? ""
        guard let osmium = executable("osmium", path: searched) else { throw .osmiumMissing(searched: searched) }
        let locate = [
            osmium, "add-locations-to-ways", "-F", "pbf", "-f", "pbf,locations_on_ways=true", "--ignore-missing-nodes", "-o", "-", path,
        ]
        let filter = [
            osmium, "tags-filter", "-R", "-F", "pbf", "-f", "opl,add_metadata=false,locations_on_ways=true", "-o", "-", "-", "w/highway",
            "nw/name",
        ]
        do {
            return try run(locate, into: filter, path: path)
        } catch let problem as Problem {
            throw problem
        } catch {
            throw .unreadable(path: path, why: "\(error)")
        }
    }

    /// A PBF file is a sequence of blobs, each after a 4-byte length and a BlobHeader whose
    /// first field (tag 0x0A) is the type; the first blob's is the 9 bytes "OSMHeader"
    /// (wiki.openstreetmap.org/wiki/PBF_Format). Checked before osmium runs: its own error
    /// for a text file is "PBF blob header too long".
    static func checkPBF(_ path: String) throws(Problem) {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw .unreadable(path: path, why: "no such file or no permission") }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 15)) ?? Data()
        guard head.count == 15, Array(head[4..<6]) == [0x0A, 9], head[6..<15].elementsEqual("OSMHeader".utf8) else {
            throw .notPBF(path: path)
        }
    }

    private static func executable(_ name: String, path: String) -> String? {
        path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private static func run(_ firstCommand: [String], into secondCommand: [String], path: String) throws -> StreetExtract {
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("bikepath-osmium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: errors, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: errors) }
        let first = try process(firstCommand, stderr: errors.appendingPathComponent("1"))
        let second = try process(secondCommand, stderr: errors.appendingPathComponent("2"))
        let between = Pipe(), out = Pipe()
        first.standardOutput = between
        second.standardInput = between
        second.standardOutput = out
        try first.run()
        try second.run()
        // Ours closed, so that each child's end of the pipe is the only one left.
        try between.fileHandleForReading.close()
        try between.fileHandleForWriting.close()
        try out.fileHandleForWriting.close()
        var builder = StreetExtract.Builder()
        var pending: [UInt8] = []
        var malformed: OPLReader.Error?
        while malformed == nil, let chunk = try out.fileHandleForReading.read(upToCount: 1 << 16), !chunk.isEmpty {
            pending.append(contentsOf: chunk)
            var start = 0
            while let end = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                do {
                    try builder.add(line: String(decoding: pending[start..<end], as: UTF8.self)[...])
                } catch {
                    malformed = error
                    break
                }
                start = end + 1
            }
            pending.removeFirst(start)
        }
        if malformed != nil {
            first.terminate()
            second.terminate()
        }
        first.waitUntilExit()
        second.waitUntilExit()
        for (p, file) in [(first, "1"), (second, "2")] where p.terminationStatus != 0 && malformed == nil {
            let stderr = (try? String(contentsOf: errors.appendingPathComponent(file), encoding: .utf8)) ?? ""
            throw Problem.osmiumFailed(
                command: ([p.executableURL?.path ?? "osmium"] + (p.arguments ?? [])).joined(separator: " "), status: p.terminationStatus,
                stderr: stderr.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        if let malformed { throw Problem.malformed(malformed) }
        if !pending.isEmpty {
            do { try builder.add(line: String(decoding: pending, as: UTF8.self)[...]) } catch { throw Problem.malformed(error) }
        }
        let extract = builder.finish()
        guard !extract.edges.isEmpty else { throw Problem.noStreets(path: path) }
        return extract
    }

    private static func process(_ command: [String], stderr: URL) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: command[0])
        p.arguments = Array(command.dropFirst())
        _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
        p.standardError = try FileHandle(forWritingTo: stderr)
        return p
    }
}
