import APNSimRules
import ArgumentParser
import Foundation

/// `apnsim tokens`: the tokens of a token set, one per line, as a world file's `tokenSets` or `POST /v1/tokens` declares
/// them, so a load test's provider sends to the tokens the gateway knows.
struct TokensCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "Print the tokens of a token set (a world file's tokenSets), one per line, for a load test's provider."
    )

    @Option(help: "How many tokens.")
    var count: Int

    @Option(help: "The set's seed: the same seed and count give the same tokens.")
    var seed: UInt64

    @Option(help: "Bytes in each token.")
    var bytes = 32

    @Option(help: "Print each as a URL on this gateway, https://HOST:PORT/3/device/TOKEN (h2load -i takes such a list).")
    var url: String?

    func validate() throws {
        let set = TokenSet(count: count, seed: seed, bundleID: "", environment: .development, bytes: bytes)
        if let problem = set.problem { throw ValidationError(problem.replacingOccurrences(of: "a token set has ", with: "--")) }
    }

    func run() throws {
        let prefix = url.map { $0.hasSuffix("/") ? "\($0)3/device/" : "\($0)/3/device/" } ?? ""
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        TokenSet(count: count, seed: seed, bundleID: "", environment: .development, bytes: bytes).forEachToken { token in
            out += Array((prefix + token.hex + "\n").utf8)
            if out.count >= 1 << 20 {
                FileHandle.standardOutput.write(Data(out))
                out.removeAll(keepingCapacity: true)
            }
        }
        FileHandle.standardOutput.write(Data(out))
    }
}
