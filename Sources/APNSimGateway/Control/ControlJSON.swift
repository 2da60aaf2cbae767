import APNSimRules
import APNSimRuntime
import Foundation
import Hummingbird
import NIOCore

/// JSON in and out of the control API: RFC 3339 dates in UTC with milliseconds (`2026-11-23T12:47:14.120Z`), sorted
/// keys, errors as `{"error": "…"}`.
package enum ControlJSON {
    /// RFC 3339 with milliseconds and the zone, `Z` for UTC.
    package static let dateStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    package static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try encoded(value)
        // Encoding a listing of 100,000 devices or activities freed hundreds of megabytes in small blocks.
        if data.count >= 8 << 20 { Allocator.releaseFreed() }
        return Response(status: status, headers: [.contentType: "application/json"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `value` as the control API writes it.
    package static func encoded(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(dateStyle))
        }
        return try encoder.encode(value)
    }

    package static func error(_ message: String, status: HTTPResponse.Status = .badRequest) -> Response {
        (try? response(["error": message], status: status)) ?? Response(status: status)
    }

    /// Decodes a request body, turning decoding failures into a sentence.
    package static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int = 1 << 20) async throws -> T {
        let buffer = try await request.body.collect(upTo: limit)
        return try decode(T.self, from: Data(buffer.readableBytesView))
    }

    /// Decodes a body already read; every failure is a ``ControlAPIError`` with a sentence naming the field.
    /// - Parameter foundationDates: read times as Foundation's `Codable` writes them (an app manifest's, as
    ///   `AppManifest` encodes them), not as RFC 3339 or milliseconds.
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data, foundationDates: Bool = false) throws(ControlAPIError) -> T {
        let decoder = JSONDecoder()
        if !foundationDates { decoder.dateDecodingStrategy = rfc3339Dates }
        do {
            return try decoder.decode(T.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw ControlAPIError("missing field \"\(key.stringValue)\" at \(path(context))")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw ControlAPIError("wrong type at \(path(context)): \(context.debugDescription)")
        } catch let DecodingError.dataCorrupted(context) {
            throw ControlAPIError("\(context.debugDescription) at \(path(context))")
        } catch {
            throw ControlAPIError("the body is not the JSON expected: \(error)")
        }
    }

    /// Times in bodies as in queries: RFC 3339, or milliseconds since 1970.
    private static let rfc3339Dates: JSONDecoder.DateDecodingStrategy = .custom { decoder in
        let container = try decoder.singleValueContainer()
        let text = (try? container.decode(String.self)) ?? (try? container.decode(Double.self)).map { String($0) } ?? ""
        guard let date = date(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "expected an RFC 3339 time such as 2026-11-23T12:00:00Z, found \(text)"))
        }
        return date
    }

    private static func path(_ context: DecodingError.Context) -> String {
        let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return text.isEmpty ? "the top level" : text
    }

    /// `since` and similar query values: RFC 3339 (with or without fractions; a time without a zone is UTC), or
    /// milliseconds since 1970.
    package static func date(_ text: String) -> Date? {
        if let millis = Double(text) {
            // Finite and within the years 0001-9999, so no later conversion of it can trap.
            guard millis.isFinite, abs(millis) < 253_402_300_800_000 else { return nil }
            return Date(timeIntervalSince1970: millis / 1000)
        }
        if let date = try? Date(text, strategy: dateStyle) { return date }
        if let date = try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)) {
            return date
        }
        return try? Date(text, strategy: .iso8601)
    }
}

package struct ControlAPIError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
