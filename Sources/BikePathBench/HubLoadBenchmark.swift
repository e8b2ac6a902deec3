import AsyncHTTPClient
import BikePathAPI
import CompressNIO
import Foundation
import NIOCore

/// `BikePathBench hub-load URLS DEVICES SECONDS BATCH [RATE]`: simulated devices upload a day of
/// confirmed rides (a trip summary and a confirmation with a 120-point path per ride) in
/// batches to one or more hubs (round robin), for SECONDS, each retrying a failed batch
/// on the next hub until it is acknowledged. Prints accepted records/s, latency
/// percentiles and how many records were acknowledged (bench/hub.sh compares that with
/// the rows in the database).
///
/// Every batch body is encoded before the clock starts: a simulated device sends prepared
/// bytes, so the load generator's own JSON encoding (~9 ms of CPU per 50-record batch,
/// 15 % of the 2 cores it shares with the hub) is not charged to the hub. Each device gets
/// enough batches for `maxRate` records/s (twice the goal); one that runs out stops early
/// and the figure says so.
///
/// Without RATE each device sends its next batch as soon as the last one is acknowledged
/// (closed loop: the hub is saturated, and latency is mostly queueing, DEVICES ÷ requests
/// per second). With RATE (records/s offered in all) each device sends on a fixed schedule,
/// as real devices do, so the latencies are those of a hub serving that rate; a batch whose
/// due time passed while its device still waited on an earlier one is counted as due but
/// never sent (a hub that falls behind cannot hide behind a slower offered rate).
///
/// Bodies are gzipped, as `bikepathd sync` sends them. BATCH 2 is one ride per request (its
/// trip and its confirmation): what a device sends after a ride; 50 is a device catching up.
/// BATCH 0 is the floor beside them: bare requests, each the device's live position (`PUT
/// /v1/position`: the token checked, a small body decoded, one row replaced), RATE then in
/// requests/s.
enum HubLoadBenchmark {
    static let maxRate = 4_000.0

    /// A 3 km ride's statistics, for every simulated upload.
    static let rideStats = TripStatisticsUpload(
        distanceM: 3_000, elapsedS: 900, movingS: 850, avgMovingSpeed: 3.5, maxSpeed: 8, elevationGainM: 10, co2AvoidedG: 360)

    static func token(_ device: Int) -> String { "bench-token-\(device)-0123456789abcdef" }

    static func ride(device: Int, n: Int) -> [BatchRequest.Item] {
        let id = "D\(device)-R\(n)"
        let start: Int64 = 1_793_520_000_000_000_000 + Int64(n) * 1_800_000_000_000
        let trip = TripUpload(id: "T-\(id)", startUtcNs: start, endUtcNs: start + 900_000_000_000, statistics: rideStats)
        let lat = 52.50 + Double(device % 50) * 0.002, lon = 13.30 + Double(n % 50) * 0.002
        let path = (0..<120).map { [lat + Double($0) * 0.0002, lon] }
        let obstacles = (0..<3).map {
            ObstacleUpload(
                id: "O\($0)", kind: "pothole", offsetS: Double(60 + $0 * 100),
                position: WirePosition(lat: lat + Double($0) * 0.005, lon: lon), origin: "detected")
        }
        let draft = DraftUpload(id: id, trip: trip, pathStatus: "medium", path: path, obstacles: obstacles, roadQuality: [])
        return [
            .init(id: trip.id, body: .trip(trip)),
            .init(id: id, body: .confirmation(ConfirmationUpload(confirmed: true, confirmedSha256: nil, draft: draft))),
        ]
    }

    /// The device's batch bodies, encoded: `count` batches of `batch` records (whole rides);
    /// with `batch` 0, `count` live positions.
    static func bodies(device: Int, count: Int, batch: Int) throws -> [(records: Int, body: ByteBuffer)] {
        if batch == 0 {
            return try (0..<count).map { n in
                let at = WirePosition(lat: 52.50 + Double(device % 50) * 0.002, lon: 13.30 + Double(n % 1000) * 0.00005)
                return (1, ByteBuffer(bytes: try WireJSON.encode(LivePositionUpload(utcNs: nil, position: at, speed: 5))))
            }
        }
        var n = 0
        return try (0..<count).map { _ in
            var items: [BatchRequest.Item] = []
            while items.count < batch { items += ride(device: device, n: n); n += 1 }
            var plain = ByteBuffer(bytes: try WireJSON.encode(BatchRequest(records: items)))
            return (items.count, try plain.compress(with: .gzip))
        }
    }

    static func run(urls: [String], devices: Int, seconds: Double, batch: Int, rate: Double? = nil) async throws {
        let perDevice = Int((seconds * maxRate / Double(devices * max(batch, 1))).rounded(.up))
        let prepared = try await withThrowingTaskGroup(of: (Int, [(records: Int, body: ByteBuffer)]).self) { group in
            for d in 0..<devices { group.addTask { (d, try bodies(device: d, count: perDevice, batch: batch)) } }
            var all = [[(records: Int, body: ByteBuffer)]](repeating: [], count: devices)
            for try await (d, b) in group { all[d] = b }
            return all
        }
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        // bench/hub.sh waits for this line before it counts to its kill -9.
        FileHandle.standardOutput.write(Data("sending\n".utf8))
        let cpuAtStart = processCPUSeconds()
        // With RATE: each device's batches at this interval, the devices' schedules staggered.
        let interval = rate.map { Duration.seconds(Double(devices * max(batch, 1)) / $0) }
        let begin = ContinuousClock.now
        let stopSending = begin + .seconds(seconds)
        let results = try await withThrowingTaskGroup(of: (acked: Int, latencies: [Double], retries: Int, ranOut: Bool, unsent: Int).self) {
            group in
            for (d, batches) in prepared.enumerated() {
                group.addTask {
                    var acked = 0, retries = 0, target = d
                    var latencies: [Double] = []
                    var next = batches.makeIterator()
                    var due = begin + (interval ?? .zero) * (Double(d) / Double(devices))
                    while ContinuousClock.now < stopSending, let upload = next.next() {
                        // Paced, latency counts from the batch's due time (a hub that falls behind is
                        // charged for the wait it caused); closed loop, from each attempt.
                        let scheduled = due
                        if let interval {
                            try await Task.sleep(until: due, clock: .continuous)
                            due += interval
                        }
                        // Retry until acknowledged: a hub killed mid-load is answered by the next one (or by itself once restarted).
                        while true {
                            let url = urls[target % urls.count]
                            target += 1
                            var request = HTTPClientRequest(url: url + (batch == 0 ? "/v1/position" : "/v1/batch"))
                            request.method = batch == 0 ? .PUT : .POST
                            request.headers.add(name: "Authorization", value: "Bearer \(token(d))")
                            request.headers.add(name: "Content-Type", value: "application/json")
                            if batch > 0 { request.headers.add(name: "Content-Encoding", value: "gzip") }
                            request.body = .bytes(upload.body)
                            let sent = interval == nil ? ContinuousClock.now : scheduled
                            if let response = try? await http.execute(request, timeout: .seconds(10)),
                                await acknowledged(response, batch: batch)
                            {
                                let elapsed = ContinuousClock.now - sent
                                latencies.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
                                acked += upload.records
                                break
                            }
                            retries += 1
                            try await Task.sleep(for: .milliseconds(100))
                        }
                    }
                    // Paced: the due times that passed before the stop without a send.
                    var unsent = 0
                    if let interval {
                        while due < stopSending { unsent += 1; due += interval }
                    }
                    return (acked, latencies, retries, ContinuousClock.now < stopSending, unsent)
                }
            }
            var all: [(Int, [Double], Int, Bool, Int)] = []
            for try await r in group { all.append(r) }
            return all
        }
        try await http.shutdown()
        let cpu = processCPUSeconds() - cpuAtStart
        let wall = ContinuousClock.now - begin
        let wallSeconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
        let acked = results.map(\.0).reduce(0, +)
        let latencies = results.flatMap(\.1).sorted()
        func percentile(_ p: Double) -> Double {
            latencies.isEmpty ? .nan : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
        }
        print(
            String(
                format:
                    "records acknowledged: %d in %.2f s = %.0f records/s; %d requests of %d records, p50 %.1f ms, p99 %.1f ms; %d retried",
                acked, wallSeconds, Double(acked) / wallSeconds, latencies.count, max(batch, 1), percentile(0.5), percentile(0.99),
                results.map(\.2).reduce(0, +)))
        if results.contains(where: { $0.3 }) {
            print("note: a device sent all its \(perDevice) prepared batches before the time was up (a floor)")
        }
        if rate != nil {
            let unsent = results.map(\.4).reduce(0, +)
            print(
                "batches due but never sent: \(unsent) (\(unsent * max(batch, 1)) records; the hub fell behind the offered rate when not 0)"
            )
        }
        // Beside the hubs' and the database's CPU: on one machine the three share its cores.
        print(String(format: "load generator CPU: %.2f ms a request", cpu * 1000 / Double(max(1, latencies.count))))
        print("acknowledged=\(acked)")
    }

    /// Every record of the batch stored (or held already); a live position replaced.
    private static func acknowledged(_ response: HTTPClientResponse, batch: Int) async -> Bool {
        guard let answer = try? await response.body.collect(upTo: 1 << 22) else { return false }
        if batch == 0 { return response.status == .noContent }
        guard response.status == .ok, let decoded = try? JSONDecoder().decode(BatchResponse.self, from: Data(answer.readableBytesView))
        else { return false }
        return decoded.results.allSatisfy { $0.status < 300 }
    }

    /// This process's CPU time (user + system) so far.
    private static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
