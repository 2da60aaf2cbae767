import APNSimRules
import APNSimStore
import Foundation
import GRDB
import Testing

/// A store file written before devices said where a notification shows gets `presentation` for its displayed records
/// when it is opened, so the inbox groups them as before.
@Suite("Store migration: presentation")
struct PresentationMigrationTests {
    @Test("Displayed and replaced records with alert text get app, thread, banner and list; the rest get none")
    func backfill() async throws {
        // The file as the store before this migration left it: no column, and records without it.
        let path = try oldStoreFile { db in
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v7-presentation'")
            try db.execute(sql: "ALTER TABLE deliveries DROP COLUMN presentation")
            let rows: [(String, String, String?)] = [
                ("threaded", "displayed", #"{"title":"T","body":"B","threadID":"orders","attachments":[],"userInfo":{}}"#),
                ("plain", "replaced", #"{"body":"B","attachments":[],"userInfo":{}}"#),
                ("badge", "displayed", #"{"badge":3,"attachments":[],"userInfo":{}}"#),
                ("woken", "background", #"{"attachments":[],"userInfo":{}}"#),
                ("waiting", "", nil),
            ]
            for (id, outcome, content) in rows {
                try db.execute(sql: """
                    INSERT INTO deliveries (id, apnsId, device, bundleID, token, pushType, outcome, content, acceptedAt)
                    VALUES (?, ?, 'device-1', 'com.example.app', 'ab', 'alert', nullif(?, ''), ?, 1800000000)
                    """, arguments: [id, "APNS-\(id)", outcome, content])
            }
        }

        let store = try SQLiteStore(path: path)
        let records = Dictionary(uniqueKeysWithValues: try store.deliveries(matching: .init(limit: 10)).map { ($0.id, $0) })
        #expect(records["threaded"]?.presentation == Presentation(bundleID: "com.example.app", thread: "orders", banner: true, list: true))
        #expect(records["plain"]?.presentation == Presentation(bundleID: "com.example.app", thread: nil, banner: true, list: true))
        #expect(records["badge"]?.presentation == nil, "a badge-only push shows nowhere")
        #expect(records["woken"]?.presentation == nil)
        #expect(records["waiting"]?.presentation == nil)
    }
}
