import Foundation

/// Installation IDs of the apps on one device: kept while an app stays installed (so registering again gets
/// the same token), replaced on reinstall (so a reinstall gets a new one). Saved as JSON in the device's data
/// folder when it has one.
struct Installations: Sendable {
    private var ids: [String: String]
    private let file: URL?

    init(directory: String?) {
        file = directory.map { URL(fileURLWithPath: $0).appendingPathComponent("installations.json") }
        ids = file.flatMap { try? Data(contentsOf: $0) }.flatMap { try? JSONDecoder().decode([String: String].self, from: $0) } ?? [:]
    }

    /// The installation ID of `bundleID`, made on first install.
    mutating func id(for bundleID: String) -> String {
        if let id = ids[bundleID] { return id }
        let id = UUID().uuidString
        ids[bundleID] = id
        save()
        return id
    }

    mutating func uninstall(_ bundleID: String) {
        ids[bundleID] = nil
        save()
    }

    private func save() {
        guard let file else { return }
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? JSONEncoder().encode(ids).write(to: file, options: .atomic)
    }
}
