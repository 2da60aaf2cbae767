import APNSimRules
import Foundation

extension WorldFile {
    /// Reads and checks the world file at `path`, and the key files it names (`publicKeyFile`, relative to it).
    public static func load(path: String) throws -> World {
        let url = URL(fileURLWithPath: path)
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw WorldFileError("\(path): cannot read the world file (\(error.localizedDescription))")
        }
        return try parse(text, path: path, directory: url.deletingLastPathComponent(), readFile: readFromDisk)
    }

    /// Reads a file a world file names, from disk.
    public static let readFromDisk: @Sendable (URL) throws -> String = { try String(contentsOf: $0, encoding: .utf8) }
}
