import APNSimRules
import APNSimStore
import NIOHTTP2

extension ProviderConnection {
    /// Records that the gateway refused or closed this connection (`GET /v1/connections`, docs/records.md): the one
    /// place a refusal the client reports vaguely (a failed handshake, a GOAWAY) is written down whole.
    func recordConnection(_ event: ConnectionRecord.Event, reason: String? = nil, errorCode: HTTP2ErrorCode? = nil,
                          lastStreamID: HTTP2StreamID? = nil, tlsAlert: String? = nil, fault: Fault? = nil, explanation: String) {
        var subject: String?
        if case .certificate(let certificate) = auth { subject = certificate.subject }
        services.connectionRecords.record(ConnectionRecord(
            at: services.clock.now(), event: event, environment: environment.rawValue, api: role == .provider ? "provider" : "management",
            peer: remoteAddress, reason: reason, errorCode: errorCode.map(Self.name), lastStreamID: lastStreamID.map { Int($0) },
            tlsAlert: tlsAlert, authMode: tlsDone ? auth.modeName : nil, certificateSubject: subject, fault: fault?.summary,
            explanation: explanation))
    }

    /// Records a GOAWAY the gateway wrote: its reason, and what the client should make of it.
    func recordGoAway(_ goAway: ProviderConnectionStateMachine.GoAway) {
        let last = Int(goAway.lastStreamID)
        let explanation: String
        if let fault = goAway.fault {
            explanation = "fault \(fault.id ?? "?") sent GOAWAY {\"reason\":\"\(goAway.reason)\"}; streams up to \(last) were answered, "
                + "later ones were not processed and may be sent again on a new connection"
        } else {
            switch goAway.reason {
            case RejectionReason.badCertificateEnvironment.rawValue:
                var presented = "the client certificate"
                if case .certificate(let certificate) = auth {
                    let environments = certificate.environments.map(\.rawValue).sorted().joined(separator: " and ")
                    presented = "the client certificate (\(certificate.subject)) is for \(environments) and"
                }
                explanation = "\(presented) this port serves \(environment): connect to the \(environment.other) port, "
                    + "or use a certificate for \(environment) (nothing on this connection was processed)"
            case RejectionReason.idleTimeout.rawValue:
                explanation = "the client sent nothing for \(services.policy.idleTimeout) (--idle-timeout); APNs closes idle connections too: "
                    + "open a new one when there is something to send"
            case RejectionReason.shutdown.rawValue:
                explanation = "the gateway is shutting down; streams up to \(last) were answered, later ones were not processed"
            default:
                explanation = "the gateway sent GOAWAY {\"reason\":\"\(goAway.reason)\"} with last stream \(last)"
            }
        }
        recordConnection(.goAway, reason: goAway.reason, errorCode: goAway.errorCode, lastStreamID: goAway.lastStreamID,
                         fault: goAway.fault, explanation: explanation)
    }

    /// RFC 9113 §7's names of HTTP/2 error codes.
    private static func name(_ code: HTTP2ErrorCode) -> String {
        let names = ["NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
                     "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
                     "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"]
        let code = code.networkCode
        return names.indices.contains(code) ? names[code] : "0x" + String(code, radix: 16)
    }
}
