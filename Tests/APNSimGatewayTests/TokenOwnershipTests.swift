import APNSimCore
@testable import APNSimGateway
import APNSimStore
import Foundation
import Testing

/// Which device a push goes to, or why none, driven with plain values.
@Suite("Token ownership")
struct TokenOwnershipTests {
    static let token = DeviceToken(String(repeating: "cd", count: 32))!
    static let removedAt = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("A registration owns its token; a removal leaves no owner and remembers where the app was")
    func registerThenRemove() {
        var ownership = TokenOwnership()
        #expect(ownership.owner(of: Self.token) == nil && ownership.formerOwner(of: Self.token) == nil, "a world-file token: neither")
        ownership.registered(Self.token, device: "d1")
        #expect(ownership.owner(of: Self.token) == "d1")
        #expect(ownership.formerOwner(of: Self.token) == nil)
        ownership.removed(Self.token, bundleID: "com.example.app", from: "d1", at: Self.removedAt)
        #expect(ownership.owner(of: Self.token) == nil)
        #expect(ownership.formerOwner(of: Self.token) == .init(device: "d1", bundleID: "com.example.app", removedAt: Self.removedAt))
        ownership.registered(Self.token, device: "d1")
        #expect(ownership.owner(of: Self.token) == "d1" && ownership.formerOwner(of: Self.token) == nil, "registered again")
    }

    @Test("A removal on a device that no longer owns the token leaves the owner as it is")
    func removalElsewhere() {
        var ownership = TokenOwnership()
        ownership.registered(Self.token, device: "d1")
        ownership.registered(Self.token, device: "d2")
        ownership.removed(Self.token, bundleID: "com.example.app", from: "d1", at: Self.removedAt)
        #expect(ownership.owner(of: Self.token) == "d2")
        #expect(ownership.formerOwner(of: Self.token) == nil, "owned: no former owner is asked for")
    }

    @Test("A restart takes back owners and removals from the store")
    func restore() {
        let device = DeviceDescriptor(id: "d1", name: "iPhone")
        let other = DeviceToken(String(repeating: "ef", count: 32))!
        var ownership = TokenOwnership()
        ownership.restore([
            DeviceRegistration(token: Self.token, device: device, bundleID: "com.example.app", environment: .development),
            DeviceRegistration(token: other, device: device, bundleID: "com.example.old", environment: .development,
                               unregisteredFrom: Self.removedAt),
        ])
        #expect(ownership.owner(of: Self.token) == "d1")
        #expect(ownership.owner(of: other) == nil)
        #expect(ownership.formerOwner(of: other)?.bundleID == "com.example.old")
    }
}
