import Foundation
import Hummingbird
import NIOCore
import Yams

/// The control API describing itself: `GET /v1/openapi.json`, docs/control-api.openapi.yaml as JSON, and
/// `GET /v1/records.schema.json`, the records' JSON Schema it refers to (a relative reference, so the description
/// read from a file and from the gateway both find it). Both are as this binary was built with them (the EmbedFiles
/// build plugin), and need no control token: they say nothing about what the gateway holds.
extension ControlAPI {
    static let descriptionPaths: Set<String> = ["/v1/openapi.json", "/v1/records.schema.json"]

    func addDescriptionRoutes(to router: Router<BasicRequestContext>) {
        router.get("v1/openapi.json") { _, _ in Self.json(ControlAPIDescription.openAPI) }
        router.get("v1/records.schema.json") { _, _ in Self.json(ControlAPIDescription.recordsSchema) }
    }

    private static func json(_ document: Result<ByteBuffer, ControlAPIError>) -> Response {
        switch document {
        case .success(let body):
            Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-cache"], body: .init(byteBuffer: body))
        case .failure(let error):
            ControlJSON.error(error.description, status: .internalServerError)
        }
    }
}

/// The embedded description and schema, read once.
enum ControlAPIDescription {
    static let openAPI = document("docs/control-api.openapi.yaml")
    static let recordsSchema = document("docs/records.schema.json")

    /// A file of `EmbeddedDocs` as JSON (YAML is read and written again as JSON, keys sorted).
    private static func document(_ path: String) -> Result<ByteBuffer, ControlAPIError> {
        guard let base64 = EmbeddedDocs.files.first(where: { $0.path == path })?.base64, let data = Data(base64Encoded: base64) else {
            return .failure(ControlAPIError("\(path) was not built into this binary"))
        }
        guard path.hasSuffix(".yaml") else { return .success(ByteBuffer(bytes: data)) }
        do {
            guard let object = try Yams.load(yaml: String(decoding: data, as: UTF8.self)) else {
                return .failure(ControlAPIError("\(path) is empty"))
            }
            return .success(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])))
        } catch {
            return .failure(ControlAPIError("\(path) as built into this binary is not JSON-compatible YAML: \(error)"))
        }
    }
}
