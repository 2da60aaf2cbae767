import GRDB

extension SQLiteStore {
    /// The SQLite schema, one migration per change, in the order they were made (a store file of any earlier version
    /// opens). PostgreSQL's schema is the last of these, created at once (``PostgresStore``).
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-sends") { db in
            try db.create(table: "sends") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("receivedAt", .double).notNull().indexed()  // seconds since 1970
                table.column("environment", .text).notNull()
                table.column("authMode", .text).notNull()
                table.column("method", .text).notNull()
                table.column("path", .text).notNull()
                table.column("token", .text).indexed()
                table.column("topic", .text)
                table.column("pushType", .text)
                table.column("apnsID", .text).notNull()
                table.column("headers", .jsonText).notNull()
                table.column("payload", .text)
                table.column("payloadBytes", .integer).notNull()
                table.column("status", .integer).notNull()
                table.column("reason", .text)
                table.column("explanation", .text)
                table.column("durationMicros", .integer).notNull()
                table.column("teamID", .text)
                table.column("keyID", .text)
            }
        }
        migrator.registerMigration("v2-deliveries") { db in
            try db.create(table: "deliveries") { table in
                table.primaryKey("id", .text)
                table.column("apnsId", .text).notNull()
                table.column("device", .text).notNull().indexed()
                table.column("bundleID", .text).notNull()
                table.column("token", .text).notNull().indexed()
                table.column("pushType", .text).notNull()
                table.column("outcome", .text)
                table.column("content", .jsonText)
                table.column("detail", .text)
                table.column("acceptedAt", .double).notNull().indexed()  // seconds since 1970
                table.column("deliveredAt", .double)
                table.column("displayedAt", .double)
            }
        }
        migrator.registerMigration("v3-device-state") { db in
            try db.create(table: "device_registrations") { table in
                table.primaryKey("token", .text)
                table.column("device", .jsonText).notNull()
                table.column("bundleID", .text).notNull()
                table.column("environment", .text).notNull()
            }
            try db.create(table: "held_pushes") { table in
                table.primaryKey("id", .text)
                table.column("device", .text).notNull()
                table.column("slot", .text).indexed()
                table.column("expires", .double)
                table.column("delivery", .jsonText).notNull()
            }
        }
        migrator.registerMigration("v4-unregistered-tokens") { db in
            try db.alter(table: "device_registrations") { table in
                table.add(column: "unregisteredFrom", .double)  // seconds since 1970; set when the app is removed
            }
        }
        migrator.registerMigration("v5-extension-runs") { db in
            try db.alter(table: "deliveries") { table in
                table.add(column: "extension", .jsonText)
            }
        }
        migrator.registerMigration("v6-send-faults") { db in
            try db.alter(table: "sends") { table in
                table.add(column: "fault", .text)
            }
        }
        migrator.registerMigration("v7-presentation") { db in
            try db.alter(table: "deliveries") { table in
                table.add(column: "presentation", .jsonText)  // group, thread, banner, list: where the device shows it
            }
            // Records written before devices said where a notification shows: what a device in the background says.
            try db.execute(sql: """
                UPDATE deliveries SET presentation = json_object(
                    'bundleID', bundleID, 'thread', nullif(json_extract(content, '$.threadID'), ''),
                    'banner', json('true'), 'list', json('true'))
                WHERE outcome IN ('displayed', 'replaced')
                  AND coalesce(json_extract(content, '$.title'), json_extract(content, '$.subtitle'),
                               json_extract(content, '$.body'), '') != ''
                """)
        }
        migrator.registerMigration("v8-activity-changes") { db in
            try db.alter(table: "deliveries") { table in
                table.add(column: "activity", .jsonText)  // what a liveactivity push did to its activity
            }
        }
        migrator.registerMigration("v9-interactions") { db in
            try db.create(table: "interactions") { table in
                table.primaryKey("id", .text)
                table.column("device", .text).notNull().indexed()
                table.column("bundleID", .text).notNull()
                table.column("apnsId", .text).notNull().indexed()
                table.column("token", .text)
                table.column("at", .double).notNull()  // seconds since 1970
                table.column("record", .jsonText).notNull()  // the whole InteractionRecord
            }
        }
        migrator.registerMigration("v10-summaries") { db in
            try db.create(table: "summaries") { table in
                table.primaryKey("id", .text)
                table.column("device", .text).notNull().indexed()
                table.column("at", .double).notNull()  // seconds since 1970
                table.column("record", .jsonText).notNull()  // the whole SummaryDelivery
            }
        }
        migrator.registerMigration("v11-unique-ids") { db in
            // The apns-unique-id of each push, as Apple's Push Notifications Console finds a push by it.
            for table in ["sends", "deliveries"] {
                try db.alter(table: table) { $0.add(column: "uniqueId", .text) }
                try db.create(index: "\(table)_uniqueId", on: table, columns: ["uniqueId"])
            }
        }
        migrator.registerMigration("v12-stored") { db in
            // When and why the gateway stored a push: the Push Notifications Console's stored and from-storage states.
            try db.alter(table: "deliveries") { table in
                table.add(column: "storedAt", .double)
                table.add(column: "storedFor", .text)
            }
        }
        migrator.registerMigration("v13-no-unique-id-index") { db in
            // An index on a random UUID cost every insert a B-tree search: 3% of the gateway's CPU at 55,000 pushes a
            // second (perf, Benchmarks/provider.sh). Finding a push by its apns-unique-id is a person's question, asked
            // rarely, and a scan of the record's 100,000 rows answers it in milliseconds.
            for table in ["sends", "deliveries"] {
                try db.drop(index: "\(table)_uniqueId")
            }
        }
        migrator.registerMigration("v14-no-received-at-index") { db in
            // Every push paid for this index twice, on its insert and on its removal past the record limit: 7,000
            // instructions, 3% of the provider path (Benchmarks/instructions.sh). What it served, `GET /v1/sends?since=`
            // (read newest first by id, so a recent `since` stops early) and the age limit's delete once a second, scan
            // the record's 100,000 rows in milliseconds without it.
            try db.drop(index: "sends_on_receivedAt")
        }
        migrator.registerMigration("v15-no-send-token-index") { db in
            // Every push paid for this index twice too, on its insert and on its removal past the record limit: a
            // B-tree search on a random token each time (Benchmarks/instructions.sh, the provider path). A send is
            // looked up by its token when a person asks (`GET /v1/sends?token=`): with 100,000 sends recorded, the scan of a
            // token with none takes 40 ms. The deliveries keep theirs: tests and the sandbox's `curl` wait on a token's.
            try db.drop(index: "sends_on_token")
        }
        migrator.registerMigration("v16-apns-id-spelling") { db in
            // The send record's apns-id spelt as the delivery record and every query spell it, and its team as world
            // files name a team (README, "Changelog").
            try db.execute(sql: "ALTER TABLE sends RENAME COLUMN apnsID TO apnsId")
            try db.execute(sql: "ALTER TABLE sends RENAME COLUMN teamID TO team")
            // A presentation's thread is threadID, as the content's is; the old spelling stays beside it for one release.
            try db.execute(sql: """
                UPDATE deliveries SET presentation = json_set(presentation, '$.threadID', json_extract(presentation, '$.thread'))
                WHERE json_extract(presentation, '$.thread') IS NOT NULL AND json_extract(presentation, '$.threadID') IS NULL
                """)
        }
        migrator.registerMigration("v17-connections") { db in
            // The provider connections the gateway refused or closed (ConnectionRecord): rare, so kept whole as JSON,
            // as interactions are, with the columns a filter reads.
            try db.create(table: "connections") { table in
                table.primaryKey("id", .text)
                table.column("at", .double).notNull()  // seconds since 1970
                table.column("event", .text).notNull()
                table.column("reason", .text)
                table.column("environment", .text).notNull()
                table.column("record", .jsonText).notNull()  // the whole ConnectionRecord
            }
        }
        return migrator
    }
}
