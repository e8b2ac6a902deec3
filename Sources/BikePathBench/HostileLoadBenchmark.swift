import AsyncHTTPClient
import BikePathAPI
import BikePathCore
import BikePathFixtures
import BikePathHub
import Logging
import CompressNIO
import Foundation
import NIOCore

/// `BikePathBench hostile URL SECONDS HOSTILE ROUTE-FROM ROUTE-TO` (bench/hostile.sh): legitimate
/// riders upload rides while, with HOSTILE 1, an attacker with a token uploads the rides that
/// took the hub down (the polar path, a 12 MB giant ride, a zigzag of 1.99 km steps) and 50
/// clients ask for long routes without pause. Prints the legitimate uploads' p50/p99, the
/// map's freshness (from a street's second rider acknowledged to the street on
/// `/v1/map/network`) and how each kind of hostile request was answered. Run once quiet and
/// once hostile: bench/hostile.sh compares the two and the hub's peak memory.
enum HostileLoadBenchmark {
    /// Devices 0…3 ride in pairs on fresh streets (freshness); 4…7 upload rides (latency); 8 is hostile.
    static func token(_ device: Int) -> String { HubLoadBenchmark.token(device) }

    /// A ride along a street of its own (`street`), 600 m north, by `device`.
    static func street(_ street: Int, device: Int) -> [BatchRequest.Item] {
        let lat = 51.40 + Double(street / 40) * 0.01, lon = -0.30 + Double(street % 40) * 0.01
        let start: Int64 = 1_793_520_000_000_000_000 + Int64(street) * 1_800_000_000_000
        let id = "S\(street)-D\(device)"
        let trip = TripUpload(id: "T-\(id)", startUtcNs: start, endUtcNs: start + 300_000_000_000, statistics: HubLoadBenchmark.rideStats)
        // The two riders a metre apart, as two GNSS receivers on one street.
        let path = (0...60).map { [lat + Double($0) * 0.0001, lon + Double(device % 2) * 0.00001] }
        let draft = DraftUpload(id: id, trip: trip, pathStatus: "optimal", path: path, obstacles: [], roadQuality: [])
        return [
            .init(id: trip.id, body: .trip(trip)),
            .init(id: id, body: .confirmation(ConfirmationUpload(confirmed: true, confirmedSha256: nil, draft: draft))),
        ]
    }

    /// The confirmations that took the hub down (`HostileRides`), each a gzipped batch.
    static func hostileRides() throws -> [(name: String, body: ByteBuffer)] {
        func batch(_ c: ConfirmationUpload) throws -> ByteBuffer {
            var plain = ByteBuffer(bytes: try WireJSON.encode(BatchRequest(records: [.init(id: c.draft.id, body: .confirmation(c))])))
            return try plain.compress(with: .gzip)
        }
        return [
            ("polar", try batch(HostileRides.polar("POLE"))), ("zigzag", try batch(HostileRides.zigzag("ZIGZAG"))),
            ("giant", try batch(HostileRides.giant("GIANT"))),
        ]
    }

    /// Stores a `GridCity` of `kilometres` of public paths in the SQLite hub at `path` (what the
    /// routes search) and prints the ends of the longest route across it that the search budget
    /// takes (`RouteRule.maxLinks`): corner to corner, inset a tenth of the side, moved in until
    /// the box holds no more links than a search may read. The costliest search a client can ask for.
    static func prepare(kilometres: Double, path: String) async throws {
        var network = PathNetwork()
        for ride in GridCity.rides(kilometres: kilometres, seed: 1) { network.add(ConfirmedRecord(device: ride.device, body: ride.body)) }
        let side = GridCity.side(kilometres: kilometres)
        let ends = try await HubStorage.sqlite(path: path).withStore(logger: Logger(label: "bench")) { store in
            try await store.migrate()
            try await NetworkBenchmark.storeWhole(network, in: store)
            let search = RouteSearch()
            var inset = 0.1
            while true {
                let (a, b) = (GridCity.at(side * inset, side * inset), GridCity.at(side * (1 - inset), side * (1 - inset)))
                let box = search.rule.searchBox(a, b)
                do {
                    _ = try await store.routingGraph(in: box, minRiders: search.minRiders)
                    let links = try await store.networkLinks(in: box).count
                    FileHandle.standardError.write(
                        Data(
                            "route: \(Int(Geodesic.distance(a, b) / 1_000)) km corner to corner, \(links) links in its box (budget \(search.rule.maxLinks))\n"
                                .utf8))
                    return (a, b)
                } catch RouteSearch.Problem.tooManyLinks {
                    let links = try await store.networkLinks(in: box).count
                    FileHandle.standardError.write(Data("route: inset \(inset): \(links) links in its box, over the budget\n".utf8))
                    inset += 0.01
                }
            }
        }
        let (a, b) = ends
        print("\(a.latitude),\(a.longitude) \(b.latitude),\(b.longitude)")
    }

    static func run(url: String, seconds: Double, hostile: Bool, routeFrom: String, routeTo: String) async throws {
        // A connection each for the 50 route clients and the others: AsyncHTTPClient's default of 8
        // a host queued the riders' uploads behind the routes in this process, not in the hub.
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        let hostileBodies = hostile ? try hostileRides() : []
        let stop = ContinuousClock.now + .seconds(seconds)
        func post(_ device: Int, _ body: ByteBuffer) async -> (status: Int, body: Data, ms: Double)? {
            var request = HTTPClientRequest(url: url + "/v1/batch")
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer \(token(device))")
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "Content-Encoding", value: "gzip")
            request.body = .bytes(body)
            let t0 = ContinuousClock.now
            guard let response = try? await http.execute(request, timeout: .seconds(30)),
                let data = try? await response.body.collect(upTo: 1 << 22)
            else { return nil }
            return (Int(response.status.code), Data(data.readableBytesView), milliseconds(ContinuousClock.now - t0))
        }
        func get(_ path: String) async -> (status: Int, body: Data, ms: Double)? {
            let t0 = ContinuousClock.now
            guard let response = try? await http.execute(HTTPClientRequest(url: url + path), timeout: .seconds(60)),
                let data = try? await response.body.collect(upTo: 1 << 24)
            else { return nil }
            return (Int(response.status.code), Data(data.readableBytesView), milliseconds(ContinuousClock.now - t0))
        }
        func gzip(_ items: [BatchRequest.Item]) throws -> ByteBuffer {
            var plain = ByteBuffer(bytes: try WireJSON.encode(BatchRequest(records: items)))
            return try plain.compress(with: .gzip)
        }

        let report = try await withThrowingTaskGroup(of: Report.self) { group in
            // Latency: devices 4…7, a ride each every 0.4 s (10 rides/s in all), as sync sends one.
            for d in 4..<8 {
                group.addTask {
                    var r = Report()
                    var n = 0
                    while ContinuousClock.now < stop {
                        let body = try gzip(HubLoadBenchmark.ride(device: d, n: n))
                        n += 1
                        if let a = await post(d, body), a.status == 200 { r.uploads.append(a.ms) } else { r.failedUploads += 1 }
                        try await Task.sleep(for: .milliseconds(400))
                    }
                    return r
                }
            }
            // Freshness: two riders confirm a fresh street every 2 s; the time until it is public.
            group.addTask {
                var r = Report()
                var n = 0
                while ContinuousClock.now < stop {
                    _ = await post(0, try gzip(street(n, device: 0)))
                    guard let second = await post(1, try gzip(street(n, device: 1))), second.status == 200 else {
                        r.failedUploads += 1
                        continue
                    }
                    let acked = ContinuousClock.now
                    let lat = 51.40 + Double(n / 40) * 0.01, lon = -0.30 + Double(n % 40) * 0.01
                    let box = "\(lon - 0.001),\(lat - 0.001),\(lon + 0.001),\(lat + 0.007)"
                    while ContinuousClock.now - acked < .seconds(120) {
                        if let a = await get("/v1/map/network?bbox=\(box)"), a.status == 200,
                            String(decoding: a.body, as: UTF8.self).contains("LineString")
                        {
                            r.freshness.append(milliseconds(ContinuousClock.now - acked))
                            break
                        }
                        try await Task.sleep(for: .milliseconds(100))
                    }
                    n += 1
                    try await Task.sleep(until: acked + .seconds(2))
                }
                return r
            }
            if hostile {
                // The hostile rides in turn, and a thin box round the world, without pause.
                group.addTask {
                    var r = Report()
                    var k = 0
                    while ContinuousClock.now < stop {
                        let (name, body) = hostileBodies[k % hostileBodies.count]
                        k += 1
                        if let a = await post(8, body) {
                            let refused = (try? JSONDecoder().decode(BatchResponse.self, from: a.body))?.results.first
                            r.hostile["\(name) \(a.status)/\(refused.map { "\($0.status)" } ?? "-")", default: []].append(a.ms)
                        }
                        if let a = await get("/v1/map/heatmap?bbox=-180,-0.0001,180,0.0001&cell=50") {
                            r.hostile["thin box \(a.status)", default: []].append(a.ms)
                        }
                    }
                    return r
                }
                // 50 clients asking for long routes without pause.
                for _ in 0..<50 {
                    group.addTask {
                        var r = Report()
                        while ContinuousClock.now < stop {
                            if let a = await get("/v1/routes?from=\(routeFrom)&to=\(routeTo)&k=3") {
                                r.hostile["route \(a.status)", default: []].append(a.ms)
                                if a.status == 503 { try await Task.sleep(for: .milliseconds(200)) }
                            } else {
                                r.hostile["route no answer", default: []].append(0)
                            }
                        }
                        return r
                    }
                }
            }
            // Liveness: /v1/health every 100 ms.
            group.addTask {
                var r = Report()
                while ContinuousClock.now < stop {
                    if let a = await get("/v1/health") { r.health.append(a.ms) } else { r.failedHealth += 1 }
                    try await Task.sleep(for: .milliseconds(100))
                }
                return r
            }
            var all = Report()
            for try await r in group { all.add(r) }
            return all
        }
        try await http.shutdown()
        print(report.lines().joined(separator: "\n"))
    }

    struct Report {
        var uploads: [Double] = [], failedUploads = 0
        var freshness: [Double] = []
        var health: [Double] = [], failedHealth = 0
        var hostile: [String: [Double]] = [:]

        mutating func add(_ o: Report) {
            uploads += o.uploads
            failedUploads += o.failedUploads
            freshness += o.freshness
            health += o.health
            failedHealth += o.failedHealth
            hostile.merge(o.hostile) { $0 + $1 }
        }

        static func percentile(_ values: [Double], _ p: Double) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        }

        func lines() -> [String] {
            var lines = [
                String(
                    format: "uploads: %d answered, p50 %.1f ms, p99 %.1f ms; %d failed", uploads.count, Self.percentile(uploads, 0.5),
                    Self.percentile(uploads, 0.99), failedUploads),
                String(
                    format: "freshness: %d streets, p50 %.0f ms, max %.0f ms", freshness.count, Self.percentile(freshness, 0.5),
                    freshness.max() ?? Double.nan),
                String(
                    format: "health: p99 %.1f ms, max %.1f ms; %d unanswered", Self.percentile(health, 0.99), health.max() ?? Double.nan,
                    failedHealth),
            ]
            for (name, ms) in hostile.sorted(by: { $0.key < $1.key }) {
                lines.append(
                    String(
                        format: "hostile %@: %d, p50 %.0f ms, max %.0f ms", name, ms.count, Self.percentile(ms, 0.5), ms.max() ?? Double.nan
                    ))
            }
            lines.append(
                String(format: "upload_p99_ms=%.1f freshness_p50_ms=%.0f", Self.percentile(uploads, 0.99), Self.percentile(freshness, 0.5)))
            return lines
        }
    }

    static func milliseconds(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
}
