import APNSimRules
import Foundation
import Testing

@Suite("Broadcast channel rules")
struct BroadcastRulesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func channel(_ id: String = "AAAAAAAAAAAAAAAAAAAAAA==", policy: BroadcastChannel.StoragePolicy = .mostRecentMessage,
                        bundleID: String = "com.example.app") -> BroadcastChannel {
        BroadcastChannel(id: id, bundleID: bundleID, environment: .development, storagePolicy: policy, createdAt: now)
    }

    @Test("An app may have 10,000 channels per environment; the next is CannotCreateChannelConfig, naming the app")
    func perAppLimit() {
        var world = World()
        #expect(world.create(Self.channel("Zmlyc3Q=")) == nil)
        for number in 1..<BroadcastChannel.perAppLimit {
            let id = Data("\(number)".utf8).base64EncodedString()
            world.channels[id] = Self.channel(id)
        }
        let refusal = world.create(Self.channel("ZXh0cmE="))
        #expect(refusal?.reason == .cannotCreateChannelConfig)
        #expect(refusal?.explanation == "com.example.app has 10000 channels in development, the most APNs allows; delete one first")
        #expect(world.create(Self.channel("ZXh0cmE=", bundleID: "com.example.other")) == nil, "the limit is per app")
        #expect(world.channel("ZXh0cmE=", bundleID: "com.example.app", environment: .development) == nil)
        #expect(world.channel("ZXh0cmE=", bundleID: "com.example.other", environment: .production) == nil, "environments are apart")
    }

    @Test("A channel ID must be base64 of at most 64 bytes")
    func channelIDs() {
        #expect(BroadcastChannel.idProblem("dHN0LXNyY2gtY2hubA==") == nil)
        #expect(BroadcastChannel.idProblem("not base64!")?.contains("is not base64") == true)
        #expect(BroadcastChannel.idProblem(Data(count: 65).base64EncodedString())?.contains("is 65 bytes") == true)
        #expect(BroadcastChannel.idProblem("") != nil)
    }

    @Test("A stored broadcast is kept 8 hours at most, less when apns-expiration says so, and not at all without storage")
    func storage() {
        let stored = BroadcastPlan(channel: Self.channel(), apnsID: nil, priority: 10, expiration: .storeByDefault)
        #expect(stored.storedUntil(now: Self.now) == Self.now.addingTimeInterval(8 * 3600))
        var sooner = stored
        sooner.expiration = .until(Self.now.addingTimeInterval(60))
        #expect(sooner.storedUntil(now: Self.now) == Self.now.addingTimeInterval(60))
        sooner.expiration = .until(Self.now.addingTimeInterval(86_400))
        #expect(sooner.storedUntil(now: Self.now) == Self.now.addingTimeInterval(8 * 3600))
        sooner.expiration = .once
        #expect(sooner.storedUntil(now: Self.now) == nil)
        let unstored = BroadcastPlan(channel: Self.channel(policy: .noStorage), apnsID: nil, priority: 10, expiration: .once)
        #expect(unstored.storedUntil(now: Self.now) == nil)
    }

    @Test("Paths: channel management and broadcast paths are read exactly; anything else is no path of theirs")
    func paths() {
        #expect(PushValidator.channelRoute("/1/apps/com.example.app/channels")! == ("com.example.app", false))
        #expect(PushValidator.channelRoute("/1/apps/com.example.app/all-channels")! == ("com.example.app", true))
        #expect(PushValidator.channelRoute("/1/apps/com.example.app/channels/abc") == nil)
        #expect(PushValidator.channelRoute("/1/apps//channels") == nil)
        #expect(PushValidator.broadcastBundleID(inPath: "/4/broadcasts/apps/com.example.app") == "com.example.app")
        #expect(PushValidator.broadcastBundleID(inPath: "/4/broadcasts/apps/") == nil)
        #expect(PushValidator.broadcastBundleID(inPath: "/4/broadcasts/apps/a/b") == nil)
    }

    @Test("A channel create's body needs push-type LiveActivity, unless the gateway is told to take it as that")
    func channelPushType() {
        var validator = PushValidator()
        let body = Array(#"{"message-storage-policy":1}"#.utf8)
        #expect(validator.channelStoragePolicy(body).failureReason == .missingPushType)
        #expect(validator.channelStoragePolicy(Array(#"{"message-storage-policy":0,"push-type":"liveactivity"}"#.utf8)).success == .noStorage)
        #expect(validator.channelStoragePolicy(Array(#"{"message-storage-policy":1,"push-type":"alert"}"#.utf8)).failureReason == .invalidPushType)
        validator.configuration.requireChannelPushType = false
        #expect(validator.channelStoragePolicy(body).success == .mostRecentMessage)
    }
}

private extension Result where Failure == Rejection {
    var success: Success? { try? get() }
}
