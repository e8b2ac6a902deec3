import AsyncHTTPClient
import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import NIOCore
import Testing

/// The whole path on real parts: three devices' confirmed drafts go up with the real
/// `bikepathd sync` into a real `bikepath-hub` on PostgreSQL, and the obstacles all three
/// rode over come back from the public GeoJSON endpoint with their rider count.
@Suite(.serialized, .ownThreads) struct HubOnPostgresEndToEndTests {
    static var postgresExpected: Bool { PostgresCluster.binDirectory != nil || PostgresCluster.required }

    @Test(.enabled(if: postgresExpected), .timeLimitOnceRunning(.minutes(5)))
    func corroboratedObstaclesAppearWithTheirRiderCount() async throws {
        let cluster = try PostgresCluster.shared.get()
        let url = try cluster.createDatabase()
        let bikepathd = try #require(builtExecutable("bikepathd"))
        // The synthetic rides are the same street for every device: each obstacle is met by all three.
        var devices: [Device] = []
        for _ in 1...3 { devices.append(try await Device(trips: 2, seconds: 600, confirm: 2)) }
        defer { devices.forEach { $0.dir.cleanup() } }
        var lines = ""
        for (i, device) in devices.enumerated() {
            let token = "e2e-token-of-bike-\(i + 1)-0123456789"
            try Data(token.utf8).write(to: URL(fileURLWithPath: device.tokenFile))
            lines += "bike-\(i + 1) \(token)\n"
        }
        let tokens = devices[0].dir.file("hub-tokens-all")
        _ = FileManager.default.createFile(atPath: tokens, contents: Data(lines.utf8), attributes: [.posixPermissions: 0o600])
        let hub = try HubProcess(db: "", tokens: tokens, database: url)
        defer { hub.stop() }

        for device in devices {
            let r = try await runProcess(
                bikepathd, ["sync", "--db", device.dbPath, "--hub", hub.url, "--token-file", device.tokenFile, "--once"])
            #expect(r.status == 0, "bikepathd sync: \(r.err)")
        }
        let db = String(URLComponents(string: url)!.path.dropFirst())
        #expect(
            try cluster.psql("SELECT count(DISTINCT device_id), count(*) FROM records WHERE kind = 'confirmation'", database: db) == "3|6\n"
        )

        // The map trails the uploads by one pass of the hub's map maintainer (docs/hub.md).
        #expect(
            await waitUntil {
                (try? cluster.psql("SELECT (SELECT count(*) FROM map_indexed), (SELECT count(*) FROM map_dirty)", database: db)) == "6|0\n"
            },
            "every confirmation indexed and no tile left dirty")
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        let body: ByteBuffer
        do {
            let response = try await http.execute(
                HTTPClientRequest(url: hub.url + "/v1/map/obstacles?bbox=13.39,52.50,13.60,52.54"), timeout: .seconds(30))
            #expect(response.status == .ok)
            body = try await response.body.collect(upTo: 1 << 22)
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
        let json = try #require(try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any])
        #expect(json["type"] as? String == "FeatureCollection")
        let features = try #require(json["features"] as? [[String: Any]])
        #expect(!features.isEmpty, "the obstacles met by three riders are on the map")
        for f in features {
            let p = try #require(f["properties"] as? [String: Any])
            #expect(p["riders"] as? Int == 3)
            let c = try #require((f["geometry"] as? [String: Any])?["coordinates"] as? [Double])
            // None from inside the device's privacy zone.
            let zone = Device.zone
            let dLat = (c[1] - zone.center.latitude) * 111_320, dLon = (c[0] - zone.center.longitude) * 111_320 * 0.6088
            #expect((dLat * dLat + dLon * dLon).squareRoot() > zone.radiusMeters)
        }
        #expect(!String(decoding: body.readableBytesView, as: UTF8.self).contains("bike-"))
    }
}
