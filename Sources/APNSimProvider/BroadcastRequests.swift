/// Requests of the broadcast APIs of iOS 18, shaped as Apple documents them ("Sending channel management requests to
/// APNs" and "Sending broadcast push notification requests to APNs").
extension ProviderRequest {
    /// A channel management request to `/1/apps/<bundle ID>/channels` (the management host, ports 2195 and 2196):
    /// `POST` creates one (`body` says its storage policy), `GET` reads and `DELETE` deletes the one `channelID` names.
    public static func channels(_ method: String, bundleID: String, channelID: String? = nil, body: String? = nil,
                                headers extra: [(name: String, value: String)] = [],
                                authority: String = "api-manage-broadcast.sandbox.push.apple.com") -> ProviderRequest {
        var headers: [(name: String, value: String)] = [
            (":method", method), (":scheme", "https"), (":path", "/1/apps/\(bundleID)/channels"), (":authority", authority),
        ]
        if let channelID { headers.append(("apns-channel-id", channelID)) }
        return ProviderRequest(headers: headers + extra, chunks: body.map { [Array($0.utf8)] } ?? [])
    }

    /// `GET /1/apps/<bundle ID>/all-channels`: the IDs of every channel of the app.
    public static func allChannels(bundleID: String, headers extra: [(name: String, value: String)] = [],
                                   authority: String = "api-manage-broadcast.sandbox.push.apple.com") -> ProviderRequest {
        ProviderRequest(headers: [
            (":method", "GET"), (":scheme", "https"), (":path", "/1/apps/\(bundleID)/all-channels"), (":authority", authority),
        ] + extra)
    }

    /// A broadcast: `POST /4/broadcasts/apps/<bundle ID>` on the provider host, with `apns-channel-id` and
    /// `apns-push-type: liveactivity` ahead of `extra`.
    public static func broadcast(bundleID: String, channelID: String?, payload: String?, headers extra: [(name: String, value: String)] = [],
                                 authority: String = "api.sandbox.push.apple.com") -> ProviderRequest {
        var headers: [(name: String, value: String)] = [
            (":method", "POST"), (":scheme", "https"), (":path", "/4/broadcasts/apps/\(bundleID)"), (":authority", authority),
        ]
        if let channelID { headers.append(("apns-channel-id", channelID)) }
        return ProviderRequest(headers: headers + extra, chunks: payload.map { [Array($0.utf8)] } ?? [])
    }
}
