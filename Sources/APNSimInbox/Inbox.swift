import APNSimRules
import APNSimGateway
import Hummingbird

/// The sandbox inbox (docs/inbox.md), served on the gateway's control port beside the control API: `GET /` and
/// `/inbox/*` (the page), `GET /v1/attachments/{sha256}` (the devices' own copies of what they show), and
/// `GET`/`POST /v1/compose` (the composer). Give it to the gateway as one of its `additions`:
///
/// ```swift
/// configuration.additions = [try Inbox(attachmentCopies: "data/gateway/attachments", composer: composer)]
/// ```
public struct Inbox: ControlPortAddition {
    let copies: AttachmentCopies
    /// What the composer sends with; `nil`: it is off and says why.
    let composer: InboxComposer?

    /// - Parameters:
    ///   - attachmentCopies: where to keep the attachment copies devices send; `nil`: a temporary folder, removed
    ///     when the gateway stops.
    ///   - attachmentCopyLimit: how many bytes of copies to keep; the oldest go first.
    ///   - composer: what the composer sends with (the sandbox gives one with its provider key).
    public init(attachmentCopies: String? = nil, attachmentCopyLimit: Int = 512 * 1_048_576, composer: InboxComposer? = nil) throws {
        self.copies = try AttachmentCopies(folder: attachmentCopies, limit: attachmentCopyLimit)
        self.composer = composer
    }

    public func addRoutes(to router: Router<BasicRequestContext>, gateway: GatewayAccess) {
        addPageRoutes(to: router)
        addComposeRoutes(to: router.group("v1"), gateway: gateway)
    }

    public func received(_ copy: AttachmentCopy) throws {
        try copies.receive(copy)
    }

    /// A temporary folder of copies goes with the gateway's run; a folder given to keep them stays.
    public func gatewayStopped() {
        copies.removeTemporaryFolder()
    }
}
