import APNSimRules
import APNSimProvider
import ArgumentParser
import Foundation

/// `apnsim channel create|list|read|delete|broadcast`: a provider's calls to the broadcast APIs of iOS 18
/// (docs/devices.md, "Broadcast channels"), over HTTP/2 with the same auth as `apnsim send`.
struct ChannelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channel",
        abstract: "Create, list, read and delete broadcast channels, and broadcast on one.",
        discussion: "Channel management goes to port 2195 (development) or 2196 (production); broadcasts to 2197 or 2198. --port overrides both.",
        subcommands: [Create.self, List.self, Read.self, Delete.self, Broadcast.self]
    )

    struct Target: ParsableArguments {
        @Argument(help: "The app's bundle ID.") var bundleID: String
        @Option(help: "development or production.") var environment: APNsEnvironment = .development
        @OptionGroup var provider: ProviderOptions

        /// Sends a channel management request to the management port.
        func manage(_ make: @escaping ([(name: String, value: String)]) -> ProviderRequest) async throws -> ProviderResponse {
            try await reaching { try await provider.send(environment: environment, defaultPorts: (2195, 2196), make) }
        }

        /// `GET` or `DELETE` on one channel (`apns-channel-id`), answered as `expecting`, then `lines` printed.
        func manage(_ method: String, channel: String, expecting status: Int, _ lines: @escaping (ProviderResponse) -> [String]) async throws {
            let bundleID = bundleID
            let response = try await manage { .channels(method, bundleID: bundleID, channelID: channel, headers: $0) }
            try ChannelCommand.report(response, expecting: status, lines(response))
        }

        func reaching(_ body: () async throws -> ProviderResponse) async throws -> ProviderResponse {
            do {
                return try await body()
            } catch let error as ValidationError {
                throw error
            } catch {
                throw ChannelCommandError("cannot reach the gateway at \(provider.host): \(error); is apnsim up running?")
            }
        }
    }

    /// Prints the answer's status and request ID, and `lines`; exits 1 with the reason on an error.
    static func report(_ response: ProviderResponse, expecting status: Int, _ lines: [String] = []) throws {
        guard response.status == status else {
            throw ChannelCommandError("the gateway answered \(response.status) \(response.reason ?? response.bodyText)")
        }
        for line in lines { Console.say(line) }
        Console.say("apns-request-id: \(response["apns-request-id"] ?? "-")")
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a channel; prints its apns-channel-id.")
        @OptionGroup var target: Target
        @Option(name: .customLong("storage-policy"), help: "message-storage-policy: 1 keeps the most recent message, 0 none.")
        var storagePolicy = 1

        func run() async throws {
            let body = #"{"message-storage-policy":\#(storagePolicy),"push-type":"LiveActivity"}"#
            let bundleID = target.bundleID
            let response = try await target.manage { .channels("POST", bundleID: bundleID, body: body, headers: $0) }
            try ChannelCommand.report(response, expecting: 201, ["apns-channel-id: \(response["apns-channel-id"] ?? "-")"])
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every channel of an app (all-channels).")
        @OptionGroup var target: Target

        func run() async throws {
            let bundleID = target.bundleID
            let response = try await target.manage { .allChannels(bundleID: bundleID, headers: $0) }
            let ids = (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: [String]])?["channels"] ?? []
            try ChannelCommand.report(response, expecting: 200, ids.isEmpty ? ["no channels"] : ids)
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Read one channel's configuration.")
        @OptionGroup var target: Target
        @Argument(help: "The apns-channel-id.") var channel: String

        func run() async throws {
            try await target.manage("GET", channel: channel, expecting: 200) { [$0.bodyText] }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete one channel.")
        @OptionGroup var target: Target
        @Argument(help: "The apns-channel-id.") var channel: String

        func run() async throws {
            let channel = channel
            try await target.manage("DELETE", channel: channel, expecting: 204) { _ in ["deleted \(channel)"] }
        }
    }

    struct Broadcast: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Broadcast a Live Activity update or end on a channel.")
        @OptionGroup var target: Target
        @Argument(help: "The apns-channel-id.") var channel: String
        @Option(help: "The payload, a JSON object with aps.event, aps.timestamp and aps.content-state.") var payload: String
        @Option(help: "apns-priority (10, 5 or 1).") var priority = "10"
        @Option(help: "apns-expiration (UNIX seconds; 0 for a channel without storage).") var expiration: String?

        func run() async throws {
            var headers: [(name: String, value: String)] = [("apns-push-type", "liveactivity"), ("apns-priority", priority)]
            if let expiration { headers.append(("apns-expiration", expiration)) }
            let (bundleID, channel, payload) = (target.bundleID, channel, payload)
            let response = try await target.reaching {
                try await target.provider.send(environment: target.environment, defaultPorts: (2197, 2198)) {
                    .broadcast(bundleID: bundleID, channelID: channel, payload: payload, headers: headers + $0)
                }
            }
            try ChannelCommand.report(response, expecting: 200, ["broadcast on \(channel)"])
        }
    }
}

/// A gateway's refusal or an unreachable gateway, said in one sentence.
struct ChannelCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
