import APNSimRules
import APNSimStore
import Foundation
import GRDB
import Testing

/// A store file written before each name got one spelling (README, "Changelog") reads as before once opened: its
/// columns are renamed and a presentation's thread gets its new spelling beside the old.
@Suite("Store migration: one spelling for each name")
struct SpellingMigrationTests {
    @Test("sends.apnsID and sends.teamID become apnsId and team; a presentation's thread gets threadID; nothing is lost")
    func renamed() async throws {
        // The file as the store before this migration left it: the old column names, and a presentation with thread.
        let path = try oldStoreFile { db in
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v16-apns-id-spelling'")
            try db.execute(sql: "ALTER TABLE sends RENAME COLUMN apnsId TO apnsID")
            try db.execute(sql: "ALTER TABLE sends RENAME COLUMN team TO teamID")
            try db.execute(sql: """
                INSERT INTO sends (receivedAt, environment, authMode, method, path, apnsID, headers, payloadBytes, status, durationMicros, teamID)
                VALUES (1800000000, 'development', 'token', 'POST', '/3/device/ab', 'APNS-1', '{}', 2, 200, 10, 'SIMTEAM001')
                """)
            try db.execute(sql: """
                INSERT INTO deliveries (id, apnsId, device, bundleID, token, pushType, outcome, acceptedAt, presentation)
                VALUES ('d1', 'APNS-1', 'device-1', 'com.example.app', 'ab', 'alert', 'displayed', 1800000000,
                        '{"bundleID":"com.example.app","thread":"orders","banner":true,"list":true}')
                """)
        }

        let store = try SQLiteStore(path: path)
        let send = try #require(try store.sends(matching: SendFilter(apnsID: "APNS-1")).first)
        #expect(send.apnsID == "APNS-1" && send.teamID == "SIMTEAM001")
        let delivery = try #require(try store.deliveries(matching: DeliveryFilter(apnsID: "APNS-1")).first)
        #expect(delivery.presentation?.thread == "orders")

        let reopened = try DatabaseQueue(path: path)
        let (columns, threads) = try reopened.read { db in
            (try Row.fetchAll(db, sql: "PRAGMA table_info(sends)").map { $0["name"] as String },
             try Row.fetchOne(db, sql: "SELECT json_extract(presentation, '$.threadID') AS new, json_extract(presentation, '$.thread') AS old FROM deliveries"))
        }
        #expect(columns.contains("apnsId") && columns.contains("team"), "\(columns)")
        #expect(!columns.contains("apnsID") && !columns.contains("teamID"), "\(columns)")
        #expect(threads?["new"] as String? == "orders" && threads?["old"] as String? == "orders")
        try reopened.close()
    }
}
