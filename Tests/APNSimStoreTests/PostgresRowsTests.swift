@testable import APNSimStore
import Foundation
import Testing

@Suite("PostgreSQL rows")
struct PostgresRowsTests {
    @Test("A send's row, written by hand, reads back as the record it was, NULs, quotes, control characters and absent fields included")
    func sendRowRoundTrip() throws {
        var odd = StoreTests.record(token: "a\u{0}b", status: 400)
        odd.id = 7
        odd.headers = ["x-odd": "quote \" backslash \\ tab \t bell \u{07} ünïcödé 🚀", "x-empty": ""]
        odd.payload = "{\"a\":\"nul \u{0} inside\"}"
        odd.teamID = "SIMTEAM001"
        odd.receivedAt = Date(timeIntervalSince1970: 1_800_000_000.123456)
        var bare = StoreTests.record(at: 1_800_000_001)
        (bare.payload, bare.headers, bare.topic, bare.pushType, bare.reason) = (nil, [:], nil, nil, nil)
        bare.uniqueID = "9f1c"

        let text = PostgresRows.json([odd, bare].map(PostgresRows.Send.init))
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        #expect(rows.count == 2)
        #expect(rows[0]["token"] as? String == "a\u{FFFD}b", "a row's own fields hold no NUL")
        #expect(rows[0]["status"] as? Int == 400)
        #expect(rows[1]["unique_id"] as? String == "9f1c")
        #expect(rows[1]["topic"] == nil, "an absent field is left out, so the column is NULL")
        for (row, send) in zip(rows, [odd, bare]) {
            #expect(row["received_at"] as? Double == send.receivedAt.timeIntervalSince1970)
            let record = try #require(row["record"] as? String, "the record is a string in the row, its NULs escaped within")
            #expect(try RecordJSON.decoder.decode(SendRecord.self, from: Data(record.utf8)) == send)
        }
    }
}
