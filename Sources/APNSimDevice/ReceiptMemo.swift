import APNSimDeviceLink
import APNSimRules

/// The receipts a device has sent, so that a push the gateway sends again (its receipt was lost with a link) is
/// answered with the same receipt and never shown twice (docs/device-link.md, `ack`). A value, bounded: the newest
/// ``wholeReceipts`` are kept whole (compact, as their JSON), the IDs of the ``rememberedIDs`` answered before them by
/// hash. The gateway sends a push again only when its receipt did not reach the record (a link that broke with the
/// receipt in flight, a gateway killed before its commit), so the repeats are at most the pushes of one broken link.
struct ReceiptMemo: Sendable {
    /// How many receipts are kept whole; the oldest go first, a quarter at a time so that forgetting costs nothing per
    /// push. A device under steady load kept 1,250 once, as values: half a megabyte each device (Benchmarks/soak.sh).
    static let wholeReceipts = 64
    /// How many pushes answered before those are remembered by the hash of their ID (8 bytes each): one sent again is
    /// answered "forgotten" (``DeviceLinkMessage/Ack/forgotten``) and not shown again. Past these a push sent again is
    /// shown again. The gateway resends only what one broken link or one uncommitted batch of its record left without
    /// a receipt.
    static let rememberedIDs = 256

    /// By delivery ID, each with its hash (``Prehashed``).
    private var whole: [Key: DeviceLinkMessage.Receipt.Compact] = [:]
    private var wholeOrder: [Key] = []
    private typealias Key = Prehashed<String>
    /// The hashes of the IDs let go from ``whole``, a ring filled in order: made whole at the first (2 KB), so that a
    /// device under steady load reaches its size once, early (a set that grew as it filled kept a thousand devices
    /// growing for minutes in `Benchmarks/soak.sh`). Searched from end to end: 256 comparisons, tens of nanoseconds.
    private var forgotten: [Int] = []
    private var nextForgotten = 0

    /// The receipt sent for `deliveryID`, while it is kept whole.
    func receipt(for deliveryID: String) -> DeviceLinkMessage.Receipt? { whole[Key(deliveryID)]?.receipt }

    /// The receipt sent for `deliveryID` as it is kept, written, while it is kept whole.
    func compact(for deliveryID: String) -> DeviceLinkMessage.Receipt.Compact? { whole[Key(deliveryID)] }

    /// Whether a receipt was sent for `deliveryID` and is no longer kept whole.
    func forgot(_ deliveryID: String) -> Bool {
        guard !forgotten.isEmpty else { return false }
        let key = Key(deliveryID)
        return whole[key] == nil && forgotten.contains(key.hashed)
    }

    /// Keeps `receipt` as the answer to `deliveryID`.
    mutating func remember(_ receipt: DeviceLinkMessage.Receipt, for deliveryID: String) {
        let key = Key(deliveryID)
        guard whole.updateValue(.init(receipt), forKey: key) == nil else { return }
        wholeOrder.append(key)
        guard wholeOrder.count > Self.wholeReceipts + Self.wholeReceipts / 4 else { return }
        let leaving = wholeOrder.count - Self.wholeReceipts
        for key in wholeOrder[..<leaving] {
            whole[key] = nil
            forget(key.hashed)
        }
        wholeOrder.removeFirst(leaving)
    }

    private mutating func forget(_ hash: Int) {
        guard forgotten.count == Self.rememberedIDs else {
            if forgotten.isEmpty { forgotten.reserveCapacity(Self.rememberedIDs) }
            forgotten.append(hash)
            return
        }
        forgotten[nextForgotten] = hash
        nextForgotten = (nextForgotten + 1) % Self.rememberedIDs
    }
}
