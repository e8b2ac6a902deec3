import BikePathAPI
import BikePathCore
import Foundation
import Hummingbird

/// `PUT /v1/manual-paths/{id}` (docs/hub.md, "Manual paths"): a registered device names the
/// streets a rider rode; the hub makes the path on the imported streets, answers it as GeoJSON
/// and counts it as the rider's rating. A device write as records are: the same token, rate
/// limit, body limits and decoding lanes (`HubServer.guarded`); the same id again with the
/// same body is a duplicate (200), with another a conflict (409), and neither changes anything.
extension HubServer {
    func addManualPaths(to router: Router<HubContext>, table: RouteTable) {
        table.on(router, "v1/manual-paths/:id", .put) { request, context in
            let id = context.parameters.get("id") ?? ""
            return try await guarded(request, context) { json throws(Refusal) in
                try ManualPathParsing.request(id: id, json: json)
            } store: { device, request in
                try await storeManualPath(device: device, id: id, request)
            }
        }
    }

    private func storeManualPath(device: String, id: String, _ request: ManualPathRequest) async throws -> Response {
        if let held = try await storeGuard.run({ [store] in try await store.manualPath(device: device, id: id) }) {
            return try answer(held: held, request)
        }
        let box = ManualPath.box(from: request.start, to: request.end)
        // One more than the cap: a box over it is refused, not cut short.
        let streets = try await storeGuard.run { [store] in try await store.streets(in: box, limit: ManualPath.maxEdges + 1) }
        guard streets.count <= ManualPath.maxEdges else {
            return rejected(
                Refusal(
                    .unprocessableContent, "too-many-streets",
                    "the streets around the path's ends hold more than \(ManualPath.maxEdges) edges: send the path in parts"))
        }
        if streets.isEmpty, try await storeGuard.run({ [store] in try await store.streetCount() }) == 0 {
            return rejected(
                Refusal(
                    .unprocessableContent, "no-streets",
                    "this hub has no streets imported (bikepath-hub import-osm), and a manual path is made on them"))
        }
        // The hub's day: the path carries no time, and it rates the streets as they are today.
        let day = Int((Date().timeIntervalSince1970 / 86_400).rounded(.down))
        let made = try await workers.run(bytes: 0) {
            Result { () throws(ManualPathError) in try StoredManualPath.make(device: device, id: id, request, day: day, on: streets) }
        }
        let path: StoredManualPath
        switch made {
        case nil: return busy("\(HubLimits.maxDecoding) requests are being worked on; try again shortly")
        case .failure(let error)?: return rejected(Refusal(.unprocessableContent, error.code, error.description))
        case .success(let p)?: path = p
        }
        if let raced = try await storeGuard.run({ [store] in try await store.storeManualPath(path, evidence: path.increments) }) {
            return try answer(held: raced, request)
        }
        return try Self.geoJSON(.created, ManualPathAnswer(path, ignored: request.ignored))
    }

    /// The answer for a key the device already holds: the stored path when the body is the
    /// same, else a conflict.
    private func answer(held: StoredManualPath, _ request: ManualPathRequest) throws -> Response {
        guard held.bodySha256 == request.sha256 else {
            return rejected(
                Refusal(
                    .conflict, "conflict",
                    "a different manual path with this id is already stored (sha256 \(held.bodySha256), this one \(request.sha256)); nothing was changed"
                ))
        }
        return try Self.geoJSON(.ok, ManualPathAnswer(held, ignored: request.ignored))
    }

    static func geoJSON(_ status: HTTPResponse.Status, _ answer: ManualPathAnswer) throws -> Response {
        Response(
            status: status, headers: [.contentType: "application/geo+json"],
            body: .init(byteBuffer: ByteBuffer(bytes: try answer.encoded())))
    }
}

/// A manual path's body to what the route makes the path of. Pure and CPU-bound: runs on
/// `DecodeWorkers`.
enum ManualPathParsing {
    static func request(id: String, json: Data) throws(Refusal) -> ManualPathRequest {
        guard Validation.isValidID(id) else {
            throw Refusal(.badRequest, "invalid", "id: the key must be 1-64 characters of A-Z a-z 0-9 - _")
        }
        let upload: ManualPathUpload
        do {
            upload = try WireKeys.decode(ManualPathUpload.self, from: json)
        } catch {
            throw Refusal(.badRequest, "invalid", "not a valid manual path document: \(UploadParsing.describe(error))")
        }
        let problems = Validation.problems(upload)
        guard problems.isEmpty, let status = PathStatus(rawValue: upload.status) else {
            throw Refusal(.badRequest, "invalid", problems.joined(separator: "; "))
        }
        let canonical: Data
        do { canonical = Data(try CanonicalJSONEncoder.encode(upload)) } catch { throw Refusal(.internalServerError, "encode", "\(error)") }
        return ManualPathRequest(
            streets: upload.streets, start: Coordinate(latitude: upload.start.lat, longitude: upload.start.lon),
            end: Coordinate(latitude: upload.end.lat, longitude: upload.end.lon), status: status, canonical: canonical,
            sha256: HubHash.sha256Hex(canonical), ignored: UploadParsing.ignoredFields(json, storedAs: [canonical]))
    }
}
