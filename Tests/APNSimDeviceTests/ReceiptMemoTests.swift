@testable import APNSimDevice
import APNSimDeviceLink
import APNSimRules
import Testing

@Suite("Device state: the receipt memo's bounds")
struct ReceiptMemoTests {
    static func receipt(_ id: String) -> DeviceLinkMessage.Receipt {
        .init(id: id, outcome: .displayed, content: NotificationContent(title: "T", body: id),
              presentation: Presentation(bundleID: "com.example.app", thread: nil, banner: true, list: true))
    }

    @Test("The newest receipts come back whole, those before them are known by ID, and the oldest are let go")
    func bounds() {
        var memo = ReceiptMemo()
        let total = ReceiptMemo.wholeReceipts * 2 + ReceiptMemo.rememberedIDs * 2
        for number in 1...total { memo.remember(Self.receipt("p\(number)"), for: "p\(number)") }
        #expect(memo.receipt(for: "p\(total)") == Self.receipt("p\(total)"), "the newest: whole, as sent")
        #expect(!memo.forgot("p\(total)"))
        let known = total - ReceiptMemo.wholeReceipts * 2
        #expect(memo.receipt(for: "p\(known)") == nil && memo.forgot("p\(known)"), "before the whole ones: known by ID")
        #expect(memo.receipt(for: "p1") == nil && !memo.forgot("p1"), "the oldest: let go, a push sent again shows again")
        #expect(!memo.forgot("never"), "a push never answered is not forgotten")
        memo.remember(Self.receipt("p\(total)"), for: "p\(total)")
        #expect(memo.receipt(for: "p\(total)") == Self.receipt("p\(total)"), "remembered twice, kept once")
    }
}
