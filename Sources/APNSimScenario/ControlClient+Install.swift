import APNSimRules
import APNSimTesting

extension ControlClient {
    /// The device's registered token for `app`, its refusal, or neither yet (`GET /v1/devices`).
    func install(device: String, app: String) async throws -> (token: String?, refusal: String?) {
        guard case .array(let devices)? = try await get("/v1/devices").body,
              let entry = devices.first(where: { $0["id"]?.string == device }) else { return (nil, nil) }
        let token = entry["apps"]?.array?.first { $0["bundleID"]?.string == app }?["token"]?.string
        let refusal = entry["refused"]?.array?.first { $0["bundleID"]?.string == app }?["message"]?.string
        return (token, refusal)
    }
}
