import APNSimStore
import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTP1
import Synchronization

/// One control API for the cluster (docs/cluster.md): a request about a device linked to another replica (a tap, an
/// install, Focus, an activity, a restart: `/v1/devices/{id}/…`) is sent on to that replica's control API, and its
/// answer given as it came; an activity's end (`POST /v1/activities/{id}/end`) that no device here has goes to each
/// other replica in turn until one has it. A request sent on is marked, and never sent on again.
struct ReplicaForwarding: RouterMiddleware {
    typealias Context = BasicRequestContext

    /// Marks a request one replica sent another, with the sender's name.
    static let forwardedBy = HTTPField.Name("apnsim-forwarded-by")!

    let links: ReplicaLinks
    let addresses: ReplicaAddresses

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[Self.forwardedBy] == nil else { return try await next(request, context) }
        let parts = request.uri.path.split(separator: "/", omittingEmptySubsequences: true).map { String($0).removingPercentEncoding ?? String($0) }
        let directory = links.directory
        if parts.count >= 4, parts[0] == "v1", parts[1] == "devices", directory.link(of: parts[2]) == nil,
           let there = directory.replicaElsewhere(of: parts[2]), let address = await addresses.address(of: there) {
            return try await forward(request, to: address)
        }
        if parts.count == 4, parts[0] == "v1", parts[1] == "activities", parts[3] == "end", request.method == .post,
           !directory.hasActivity(parts[2]) {
            let body = try await request.body.collect(upTo: 1 << 20)
            for (name, address) in await addresses.all().sorted(by: { $0.key < $1.key }) where name != links.name {
                guard let answer = try? await forward(request, body: body, to: address), answer.status != .notFound else { continue }
                return answer
            }
            var request = request
            request.body = RequestBody(buffer: body)
            return try await next(request, context)
        }
        return try await next(request, context)
    }

    /// `GET /v1/devices` for the cluster: this replica's `local` listing, and each device linked to another replica as
    /// that one lists it (each other replica asked with `asked`'s authorization), by ID. A replica that does not answer
    /// leaves its devices as this one knows them.
    func devices(_ local: [ControlAPI.DeviceView], asked: Request) async throws -> Response {
        try await merged(local, asked: asked, device: "id", whole: false)
    }

    /// `GET /v1/activities` for the cluster, as ``devices(_:asked:)``: each device's activities as the replica it is
    /// linked to lists them, in the order of their device's ID and then as that replica lists them. A device's
    /// activities here are left out when its replica answered without them (ended and dismissed there since).
    func merged(_ local: [ControlAPI.ActivityView], asked: Request) async throws -> Response {
        try await merged(local, asked: asked, device: "device", whole: true)
    }

    /// This replica's `local` listing and each other replica's (asked with `asked`'s query and authorization), the
    /// objects of a device linked to another replica as that one lists them: by the device's ID (the field `device`),
    /// each device's objects in the order of the listing they came from. `whole`: a replica's answer is all there is
    /// of its devices, and what this one lists of them is dropped first.
    private func merged(_ local: some Encodable, asked: Request, device: String, whole: Bool) async throws -> Response {
        var byDevice: [String: [Any]] = [:]
        for view in Self.objects(try ControlJSON.encoded(local)) {
            if let id = view[device] as? String { byDevice[id, default: []].append(view) }
        }
        // Every other replica is asked: a device that never linked here is not in this replica's listing at all.
        for (name, address) in await addresses.all() where name != links.name {
            guard let answer = try? await send(asked, body: ByteBuffer(), to: address), answer.status == 200 else { continue }
            var theirs: [String: [Any]] = [:]
            for view in Self.objects(Data(answer.body.readableBytesView)) where view["replica"] as? String == name {
                if let id = view[device] as? String { theirs[id, default: []].append(view) }
            }
            if whole { byDevice = byDevice.filter { (($0.value.first as? [String: Any])?["replica"] as? String) != name } }
            byDevice.merge(theirs) { _, there in there }
        }
        let merged = byDevice.keys.sorted().flatMap { byDevice[$0] ?? [] }
        let data = try JSONSerialization.data(withJSONObject: merged, options: [.sortedKeys, .withoutEscapingSlashes])
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The JSON objects of a listing.
    private static func objects(_ data: Data) -> [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: data)) as? [[String: Any]] ?? []
    }

    private func forward(_ request: Request, to address: String) async throws -> Response {
        try await forward(request, body: try await request.body.collect(upTo: 1 << 20), to: address)
    }

    /// `request` with `body`, sent to the control API at `address`; its answer.
    private func forward(_ request: Request, body: ByteBuffer, to address: String) async throws -> Response {
        let answer = try await send(request, body: body, to: address)
        var headers = HTTPFields()
        if let type = answer.type { headers[.contentType] = type }
        return Response(status: .init(code: answer.status), headers: headers, body: ResponseBody(byteBuffer: answer.body))
    }

    /// `request`'s method, path, query and authorization with `body`, sent to the control API at `address`, marked as
    /// sent on by this replica.
    private func send(_ request: Request, body: ByteBuffer, to address: String) async throws -> (status: Int, type: String?, body: ByteBuffer) {
        var sent = HTTPClientRequest(url: address + (request.uri.string.hasPrefix("/") ? request.uri.string : "/" + request.uri.string))
        sent.method = HTTPMethod(rawValue: request.method.rawValue)
        for field in request.headers where [.authorization, .contentType].contains(field.name) {
            sent.headers.add(name: field.name.rawName, value: field.value)
        }
        sent.headers.add(name: Self.forwardedBy.rawName, value: links.name)
        sent.body = .bytes(body)
        // As long as the request itself may take there: an install waits for the device's build (`?wait=`).
        let answer = try await HTTPClient.shared.execute(sent, timeout: .seconds(660))
        return (Int(answer.status.code), answer.headers.first(name: "content-type"), try await answer.body.collect(upTo: 64 << 20))
    }
}

/// Where each replica's control API answers, as the store last said; read again when a replica is not known yet.
final class ReplicaAddresses: Sendable {
    private let store: any ReplicaStore
    private let known = Mutex<[String: String]>([:])

    init(store: any ReplicaStore) {
        self.store = store
    }

    func address(of replica: String) async -> String? {
        if let address = known.withLock({ $0[replica] }) { return address }
        return await all()[replica]
    }

    func all() async -> [String: String] {
        guard let read = try? await store.controlAddresses() else { return known.withLock { $0 } }
        known.withLock { $0 = read }
        return read
    }
}
