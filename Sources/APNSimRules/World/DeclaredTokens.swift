/// Tokens a running world takes as its own (`POST /v1/tokens`): records one by one (a JSON array), or a token set by
/// count and seed (one object: a load test's tokens).
public enum DeclaredTokens: Sendable, Decodable {
    case records([World.TokenRecord])
    case set(TokenSet)

    public init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var records: [World.TokenRecord] = []
            while !array.isAtEnd { records.append(try array.decode(World.TokenRecord.self)) }
            self = .records(records)
        } else {
            self = .set(try TokenSet(from: decoder))
        }
    }
}
