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
        let (size, modified, inode) = (status.size, (Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec)), status.inode)
        if let kept = entries.withLock({ $0[path] }), kept.size == size, kept.inode == inode, kept.modified == modified {
            return kept.bytes
        }
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let bytes = Array(data)
        // Kept only when the read is the size the look found (the file was not changing under it).
        if Int64(bytes.count) == size {
            entries.withLock { $0[path] = Entry(size: size, modified: modified, inode: inode, bytes: bytes) }
        }
        return bytes
    }
}
