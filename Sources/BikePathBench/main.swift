import Foundation

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "chain":
    ChainBenchmark.run(hours: Double(arguments.dropFirst().first ?? "1") ?? 1,
                       rates: arguments.dropFirst(2).compactMap(Double.init))
case "gonzalez-cv":
    guard let root = arguments.dropFirst().first else {
        FileHandle.standardError.write("usage: BikePathBench gonzalez-cv DATASET_DIR\n".data(using: .utf8)!)
        exit(2)
    }
    do { try GonzalezCV.run(root: root) } catch {
        FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
default:
    FileHandle.standardError.write("usage: BikePathBench chain [HOURS] | gonzalez-cv DATASET_DIR\n".data(using: .utf8)!)
    exit(2)
}
