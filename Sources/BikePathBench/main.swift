import Foundation

let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "chain":
    ChainBenchmark.run(
        hours: Double(arguments.dropFirst().first ?? "1") ?? 1,
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
case "obstacles":
    // obstacles RECORDING [FIRST_SEED LAST_SEED [PER_RIDE]]
    let a = Array(arguments.dropFirst())
    guard let path = a.first else {
        FileHandle.standardError.write("usage: BikePathBench obstacles RECORDING [FIRST_SEED LAST_SEED [PER_RIDE]]\n".data(using: .utf8)!)
        exit(2)
    }
    let first = a.count > 2 ? UInt64(a[1]) ?? 1 : 1, last = a.count > 2 ? UInt64(a[2]) ?? 10 : 10
    do {
        try ObstacleBenchmark.run(path: path, seeds: first...max(first, last), perRide: a.count > 3 ? Int(a[3]) ?? 8 : 8)
    } catch {
        FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
case "distance":
    // distance RECORDING_OR_GOPRO_FOLDER… (bench/distance.sh)
    let a = Array(arguments.dropFirst())
    guard !a.isEmpty else {
        FileHandle.standardError.write("usage: BikePathBench distance RECORDING.bpr|GOPRO_CSV_FOLDER…\n".data(using: .utf8)!)
        exit(2)
    }
    do { try DistanceEvaluation.run(inputs: a) } catch {
        FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
case "store-replay", "store-bench", "live-drain", "soak":
    do {
        let options = try BenchOptions(arguments.dropFirst())
        switch arguments.first {
        case "store-replay": try StoreReplay.run(options)
        case "store-bench": try StoreBench.run(options)
        case "live-drain": try LiveDrain.run(options)
        default: try await Soak.run(options)
        }
    } catch {
        FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
case "hub-load":
    // hub-load URL[,URL…] DEVICES SECONDS BATCH [RATE] (bench/hub.sh)
    let a = Array(arguments.dropFirst())
    guard a.count == 4 || a.count == 5, let devices = Int(a[1]), let seconds = Double(a[2]), let batch = Int(a[3]),
        a.count == 4 || Double(a[4]).map({ $0 > 0 }) == true
    else {
        FileHandle.standardError.write(
            "usage: BikePathBench hub-load URL[,URL…] DEVICES SECONDS BATCH [RECORDS-PER-SECOND]\n".data(using: .utf8)!)
        exit(2)
    }
    let urls = a[0].split(separator: ",").map(String.init)
    do {
        try await HubLoadBenchmark.run(
            urls: urls, devices: devices, seconds: seconds, batch: batch, rate: a.count == 5 ? Double(a[4]) : nil)
    } catch {
        FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
case "hostile-city":
    // hostile-city KM SQLITE-PATH (bench/hostile.sh): prints the route ends
    let a = Array(arguments.dropFirst())
    guard a.count == 2, let km = Double(a[0]) else {
        FileHandle.standardError.write("usage: BikePathBench hostile-city KM SQLITE-PATH\n".data(using: .utf8)!)
        exit(2)
    }
    do { try await HostileLoadBenchmark.prepare(kilometres: km, path: a[1]) } catch {
        FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
case "hostile":
    // hostile URL SECONDS HOSTILE(0|1) FROM TO (bench/hostile.sh)
    let a = Array(arguments.dropFirst())
    guard a.count == 5, let seconds = Double(a[1]), a[2] == "0" || a[2] == "1" else {
        FileHandle.standardError.write("usage: BikePathBench hostile URL SECONDS 0|1 LAT,LON LAT,LON\n".data(using: .utf8)!)
        exit(2)
    }
    do { try await HostileLoadBenchmark.run(url: a[0], seconds: seconds, hostile: a[2] == "1", routeFrom: a[3], routeTo: a[4]) } catch {
        FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
case "map-index":
    // map-index [CONFIRMATIONS] (docs/performance.md)
    do { try await MapIndexBenchmark.run(confirmations: arguments.dropFirst().first.flatMap { Int($0) } ?? 400) } catch {
        FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
case "city":
    // city [RIDERS RIDES SEED [SCALES]] (bench/hub.sh); SCALES like 1,4,16
    let rest = Array(arguments.dropFirst())
    let a = rest.prefix(3).compactMap { Int($0) }
    let scales = rest.count > 3 ? rest[3].split(separator: ",").compactMap { Double($0) } : [1, 4, 16]
    CityBenchmark.run(
        riders: a.count > 0 ? a[0] : 200, rides: a.count > 1 ? a[1] : 20, seed: UInt64(a.count > 2 ? a[2] : 1), scales: scales)
case "map-tiles":
    // map-tiles [RIDERS RIDES SEED [SCALES]] (docs/performance.md); SCALES like 1,4,16
    let rest = Array(arguments.dropFirst())
    let a = rest.prefix(3).compactMap { Int($0) }
    let scales = rest.count > 3 ? rest[3].split(separator: ",").compactMap { Double($0) } : [1, 4, 16]
    do {
        try await MapTilesBenchmark.run(
            riders: a.count > 0 ? a[0] : 100, rides: a.count > 1 ? a[1] : 20, seed: UInt64(a.count > 2 ? a[2] : 1), scales: scales)
    } catch {
        FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
case "network":
    // network KM SEED EXPORT_DIR STORAGE… (bench/network.sh); STORAGE is sqlite:PATH or a postgres:// URL
    let a = Array(arguments.dropFirst())
    guard a.count >= 4, let km = Double(a[0]), let seed = UInt64(a[1]) else {
        FileHandle.standardError.write("usage: BikePathBench network KM SEED EXPORT_DIR sqlite:PATH|postgres://URL…\n".data(using: .utf8)!)
        exit(2)
    }
    do { try await NetworkBenchmark.run(kilometres: km, seed: seed, exportDir: a[2], storages: Array(a.dropFirst(3))) } catch {
        FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
case "street-routes":
    // street-routes PBF SEED STORAGE… (bench/network.sh); STORAGE is sqlite:PATH or a postgres:// URL
    let a = Array(arguments.dropFirst())
    guard a.count >= 3, let seed = UInt64(a[1]) else {
        FileHandle.standardError.write("usage: BikePathBench street-routes PBF SEED sqlite:PATH|postgres://URL…\n".data(using: .utf8)!)
        exit(2)
    }
    do { try await StreetRouteBenchmark.run(pbf: a[0], seed: seed, storages: Array(a.dropFirst(2))) } catch {
        FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
case "places":
    // places PBF COPIES SEED STORAGE… (bench/places.sh); STORAGE is sqlite:PATH or a postgres:// URL
    let a = Array(arguments.dropFirst())
    guard a.count >= 4, let copies = Int(a[1]), let seed = UInt64(a[2]) else {
        FileHandle.standardError.write("usage: BikePathBench places PBF COPIES SEED sqlite:PATH|postgres://URL…\n".data(using: .utf8)!)
        exit(2)
    }
    do { try await PlacesBenchmark.run(pbf: a[0], copies: copies, seed: seed, storages: Array(a.dropFirst(3))) } catch {
        FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
case "matching":
    // matching PBF RIDES SEED (bench/matching.sh)
    let a = Array(arguments.dropFirst())
    guard a.count == 3, let rides = Int(a[1]), rides > 0, let seed = UInt64(a[2]) else {
        FileHandle.standardError.write("usage: BikePathBench matching PBF RIDES SEED\n".data(using: .utf8)!)
        exit(2)
    }
    do { try MatchingBenchmark.run(pbf: a[0], rides: rides, seed: seed) } catch {
        FileHandle.standardError.write("error: \(error)\n".data(using: .utf8)!)
        exit(1)
    }
default:
    FileHandle.standardError.write(
        """
        usage: BikePathBench chain [HOURS] | gonzalez-cv DATASET_DIR | obstacles RECORDING | distance RECORDING|FOLDER…
                             | store-replay --db PATH | store-bench --db PATH --csv-dir DIR
                             | live-drain --gpsd-port P --iio-uri U | soak --hours H --db PATH --status-socket PATH
                             | hub-load URLS DEVICES SECONDS BATCH [RATE] | map-index [CONFIRMATIONS] | city [RIDERS RIDES SEED] | map-tiles [RIDERS RIDES SEED]
                             | network KM SEED EXPORT_DIR STORAGE… | places PBF COPIES SEED STORAGE… | matching PBF RIDES SEED
                             | street-routes PBF SEED STORAGE…

        """.data(using: .utf8)!)
    exit(2)
}
