import APNSimStore
import Foundation
import GRDB

/// A store file as an earlier apnsim left it, for the migration tests: made by today's store, then changed back by
/// `change` (a migration's row forgotten, its columns as they were, records it would have met). Returns its path.
func oldStoreFile(_ change: (Database) throws -> Void) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-migration-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let path = folder.appendingPathComponent("store.sqlite").path
    _ = try SQLiteStore(path: path)
    let old = try DatabaseQueue(path: path)
    try old.write(change)
    try old.close()
    return path
}
