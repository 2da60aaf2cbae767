import Foundation

/// Installation IDs of the apps on one device: kept while an app stays installed (so registering again gets
/// the same token), replaced on reinstall (so a reinstall gets a new one). A value; its device's ``DeviceData`` keeps
/// it across restarts.
struct Installations: Sendable, Hashable, Codable {
    private(set) var ids: [String: String]

    init(ids: [String: String] = [:]) {
        self.ids = ids
    }

    /// The installation ID of `bundleID`, made on first install (`made`: whether it was new, so the device saves it).
    mutating func id(for bundleID: String) -> (id: String, made: Bool) {
        if let id = ids[bundleID] { return (id, false) }
        let id = UUID().uuidString
        ids[bundleID] = id
        return (id, true)
    }

    /// Forgets `bundleID`'s installation; whether there was one.
    @discardableResult
    mutating func uninstall(_ bundleID: String) -> Bool {
        ids.removeValue(forKey: bundleID) != nil
    }

    init(from decoder: any Decoder) throws {
        ids = try [String: String](from: decoder)
    }

    func encode(to encoder: any Encoder) throws {
        try ids.encode(to: encoder)
    }
}
