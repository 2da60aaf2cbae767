import APNSimDeviceLink
import APNSimRules
import Foundation
import Logging
import Synchronization

extension DeviceHost {
    /// Pushes the gateway carried on this link for devices of this process: each goes to its device, and their
    /// receipts go back together (``DeviceLinkMessage/Receipts``). A push for a device this process does not host is
    /// left unanswered: the gateway sends it on that device's own link should this one end.
    func carried(_ carry: DeviceLinkMessage.Carry) -> [DeviceLinkMessage.Written] {
        Self.carried(carry, carrier: self, group: configuration.group, logger: logger)
    }

    /// The pushes of `carry`, each to its device among `group`'s: the receipts, and whatever `carrier`'s own pushes
    /// ask for besides (a pending ack), are returned for the link that carried them; another device's pending ack goes on
    /// its own session. With no `carrier` (a shared link, about no device), every pending ack goes on its device's own.
    static func carried(_ carry: DeviceLinkMessage.Carry, carrier: DeviceHost?, group: DeviceHostGroup?, logger: Logger) -> [DeviceLinkMessage.Written] {
        var receipts: [DeviceLinkMessage.CarriedReceipt] = []
        var answers: [DeviceLinkMessage.Written] = []
        var read: (text: String, payload: PushPayload?)?  // a broadcast's pushes share one payload: read it once
        let hosts = group?.hosts(carry.pushes.lazy.map(\.device))  // one for each push, under one lock
        receipts.reserveCapacity(carry.pushes.count)
        for (index, item) in carry.pushes.enumerated() {
            if read?.text != item.body.payload { read = (item.body.payload, try? PushPayload(json: Array(item.body.payload.utf8))) }
            guard let host = item.device == carrier?.configuration.device.id ? carrier : hosts?[index] ?? nil else {
                logger.warning("carried push for a device this process does not host", metadata: ["device": "\(item.device)"])
                continue
            }
            let now = host.configuration.clock.now()
            let (answer, link, report) = host.held.withLock { held in
                let order = held.state.orderBefore(item.body, startsPossible: false)
                let answer = held.state.answer(item.body, payload: read?.payload, now: now)
                return (answer, held.link, held.state.reordered(item.body, from: order)?.0)
            }
            // A push that reordered the device's activities: the device reports them on its own session.
            if let report {
                if host === carrier { answers.append(.activities(report)) } else { host.send(Outgoing(messages: [.activities(report)]), on: link) }
            }
            if case .receipts(let answered) = answer {  // the usual case: taken as they are, not made messages first
                for receipt in answered { receipts.append(.init(device: item.device, body: receipt.carried)) }
                continue
            }
            // An extension starts: its pending ack goes on the device's own link (this one's, for the carrier).
            let outgoing = (try? host.apply { $0.actions(answering: item.body, with: answer) }) ?? Outgoing()
            if host === carrier { answers += outgoing.messages } else { host.send(outgoing, on: link) }
        }
        return answers + (receipts.isEmpty ? [] : [.receipts(.init(receipts: receipts))])
    }
}
