import Foundation
import Synchronization
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// The media server's files, read once and served from memory while they stay as they were: each request looks at the
/// file's size, modification time and inode (one `stat`) and reads it again only when one of them changed, so a
/// fixture edited or replaced while the server runs is served as it is now. A campaign's thousand downloads of one
/// image read it once; each read took the server 53,000 instructions and three system calls (`Benchmarks/instructions.sh`,
/// the rich path).
final class MediaFiles: Sendable {
    private struct Entry {
        var size: Int64
        var modified: (seconds: Int, nanoseconds: Int)
        var inode: Inode
        var bytes: [UInt8]
    }

    private let entries = Mutex<[String: Entry]>([:])

    /// The bytes of the file at `path`, or `nil` when there is none to read (as `FileManager.contents(atPath:)`).
    func contents(atPath path: String) -> [UInt8]? {
        // Only regular files are kept; anything else is read as before, each time.
        guard let status = try? Stat(FilePath(path)), status.type == .regular else {
            return FileManager.default.contents(atPath: path).map { Array($0) }
        }
        return kept(path, as: status) ?? read(path, as: status)
    }

    /// The bytes of the file at `path` when they are kept and the file is still as it was; `nil` otherwise, without
    /// reading it (the media server's event loop asks: a read of a large file there would hold up its other
    /// connections).
    func keptContents(atPath path: String) -> [UInt8]? {
        guard let status = try? Stat(FilePath(path)), status.type == .regular else { return nil }
        return kept(path, as: status)
    }

    private func kept(_ path: String, as status: Stat) -> [UInt8]? {
        guard let kept = entries.withLock({ $0[path] }), kept.size == status.size, kept.inode == status.inode,
              kept.modified == Self.modified(status) else { return nil }
        return kept.bytes
    }

    private static func modified(_ status: Stat) -> (seconds: Int, nanoseconds: Int) {
        (Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec))
    }

    private func read(_ path: String, as status: Stat) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let bytes = Array(data)
        // Kept only when the read is the size the look found (the file was not changing under it).
        if Int64(bytes.count) == status.size {
            entries.withLock { $0[path] = Entry(size: status.size, modified: Self.modified(status), inode: status.inode, bytes: bytes) }
        }
        return bytes
    }
}
