import SwiftASN1
import X509

/// What APNs reads from a provider's client certificate (Apple, "Establishing a certificate-based connection to APNs"):
/// the environments it may push to and the topics it may push on.
public struct ProviderCertificate: Sendable, Hashable {
    /// The subject, for explanations.
    public var subject: String
    /// The subject's UID attribute: the app's bundle ID and the default topic.
    public var bundleID: String?
    public var environments: Set<APNsEnvironment>
    /// Topics from Apple's topic extension (1.2.840.113635.100.6.3.6); just the UID when the extension is absent.
    public var topics: [String]
    /// Whether the certificate lists several topics, so requests must name one in `apns-topic`.
    public var isMultiTopic: Bool { topics.count > 1 }

    public init(subject: String, bundleID: String?, environments: Set<APNsEnvironment>, topics: [String]) {
        self.subject = subject
        self.bundleID = bundleID
        self.environments = environments
        self.topics = topics
    }

    /// Reads a certificate's APNs identity. Fails only when Apple's topic extension is present but unreadable.
    public init(_ certificate: Certificate) throws {
        var bundleID: String?
        for rdn in certificate.subject {
            for attribute in rdn where attribute.type == Self.uidOID {
                bundleID = String(attribute.value)
            }
        }
        var environments: Set<APNsEnvironment> = []
        var listed: [String]?
        for ext in certificate.extensions {
            switch ext.oid {
            case Self.developmentOID: environments.insert(.development)
            case Self.productionOID: environments.insert(.production)
            case Self.topicsOID: listed = try Self.topics(inExtensionValue: ext.value)
            default: break
            }
        }
        self.init(subject: String(describing: certificate.subject), bundleID: bundleID, environments: environments,
                  topics: listed ?? (bundleID.map { [$0] } ?? []))
    }

    /// APNs development (sandbox) environment.
    public static let developmentOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 3, 1]
    /// APNs production environment.
    public static let productionOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 3, 2]
    /// Topic list: a SEQUENCE of topic UTF8Strings, each followed by a SEQUENCE naming its type (`app`, `voip`…).
    public static let topicsOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 3, 6]
    /// userId (UID), which Apple sets to the bundle ID.
    public static let uidOID: ASN1ObjectIdentifier = [0, 9, 2342, 19_200_300, 100, 1, 1]

    static func topics(inExtensionValue bytes: ArraySlice<UInt8>) throws -> [String] {
        let root = try DER.parse(bytes)
        guard case .constructed(let children) = root.content else { return [] }
        var topics: [String] = []
        for child in children where child.identifier == .utf8String {
            topics.append(String(try ASN1UTF8String(derEncoded: child)))
        }
        return topics
    }
}
