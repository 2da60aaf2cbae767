import Foundation

/// The JSON a store keeps a whole record in (an interaction, a summary; in PostgreSQL a send, a held push, a device):
/// dates as seconds since 1970 with their fraction, as the record keeps every time.
enum RecordJSON {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }()

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()
}
