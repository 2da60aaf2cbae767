import APNSimRules
import Crypto
import Foundation
import SwiftASN1
import X509

/// A whole development PKI made in code for one test run: a CA, the gateway's certificate, and provider
/// client certificates of every shape the tests need. Files land in a temporary folder, because the gateway
/// and the client read PEM files as users' set-ups do.
package struct TestPKI: Sendable {
    package let directory: URL
    package let caKey: P256.Signing.PrivateKey
    package let caName: DistinguishedName
    package let ca: Certificate

    package var caFile: String { path("ca.pem") }
    package var tls: (chain: String, key: String) { (path("gateway.pem"), path("gateway-key.pem")) }

    package static let shared: TestPKI = try! TestPKI()

    package init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("apnsim-pki-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        caKey = P256.Signing.PrivateKey()
        caName = try DistinguishedName { OrganizationName("apnsim tests"); CommonName("apnsim Test CA") }
        let now = Date()
        ca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(caKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400 * 365),
            issuer: caName, subject: caName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(caKey))
        try write(ca, key: caKey, name: "ca")

        let gatewayKey = P256.Signing.PrivateKey()
        let gateway = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(gatewayKey.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400 * 365),
            issuer: caName, subject: try DistinguishedName { CommonName("api.sandbox.push.apple.com") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName("localhost"), .dnsName("api.sandbox.push.apple.com"),
                                         .dnsName("api.push.apple.com"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(caKey))
        try write(gateway, key: gatewayKey, name: "gateway")
    }

    package func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// What a provider certificate should look like.
    package struct ProviderSpec: Sendable {
        package var bundleID: String
        package var environments: Set<APNsEnvironment>
        /// `nil`: no topic extension (a single-topic certificate).
        package var topics: [String]?
        package var validFrom: Date
        package var validUntil: Date
        /// Issue from an unrelated CA.
        package var foreignIssuer: Bool

        package init(bundleID: String = "com.example.app", environments: Set<APNsEnvironment> = [.development],
                     topics: [String]? = ["com.example.app", "com.example.app.voip", "com.example.app.complication"],
                     validFrom: Date = Date().addingTimeInterval(-3600), validUntil: Date = Date().addingTimeInterval(86_400 * 30),
                     foreignIssuer: Bool = false) {
            self.bundleID = bundleID
            self.environments = environments
            self.topics = topics
            self.validFrom = validFrom
            self.validUntil = validUntil
            self.foreignIssuer = foreignIssuer
        }
    }

    /// Issues a provider client certificate; returns the certificate and key file paths.
    package func providerCertificate(_ spec: ProviderSpec) throws -> (certificate: String, key: String) {
        let key = P256.Signing.PrivateKey()
        let issuerKey = spec.foreignIssuer ? P256.Signing.PrivateKey() : caKey
        let issuerName = spec.foreignIssuer ? try DistinguishedName { CommonName("Someone Else's CA") } : caName
        var subject = try DistinguishedName { CommonName("Apple Push Services: \(spec.bundleID)") }
        subject.insert(RelativeDistinguishedName(
            RelativeDistinguishedName.Attribute(type: ProviderCertificate.uidOID, utf8String: spec.bundleID)), at: 0)
        var extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            try ExtendedKeyUsage([.clientAuth])
        }
        if spec.environments.contains(.development) {
            try extensions.append(.init(oid: ProviderCertificate.developmentOID, critical: false, value: [0x05, 0x00]))
        }
        if spec.environments.contains(.production) {
            try extensions.append(.init(oid: ProviderCertificate.productionOID, critical: false, value: [0x05, 0x00]))
        }
        if let topics = spec.topics {
            try extensions.append(.init(oid: ProviderCertificate.topicsOID, critical: false, value: try Self.topicList(topics)[...]))
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: spec.validFrom, notValidAfter: spec.validUntil,
            issuer: issuerName, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions, issuerPrivateKey: .init(issuerKey))
        let name = "provider-\(UUID().uuidString)"
        try write(certificate, key: key, name: name)
        return (path("\(name).pem"), path("\(name)-key.pem"))
    }

    /// A device identity for the device link: a client certificate from the test CA.
    package static let deviceIdentity: (certificate: String, key: String) = {
        let pki = TestPKI.shared
        let issued = try! pki.providerCertificate(ProviderSpec(bundleID: "apnsim device", environments: [], topics: nil))
        // Also under the names `apnsim device --certs DIR` reads, so device processes can use this PKI.
        try? FileManager.default.copyItem(atPath: issued.certificate, toPath: pki.path("device.pem"))
        try? FileManager.default.copyItem(atPath: issued.key, toPath: pki.path("device-key.pem"))
        return issued
    }()

    /// Apple's topic extension: SEQUENCE { topic, SEQUENCE { type } … }.
    package static func topicList(_ topics: [String]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { coder in
            for topic in topics {
                try coder.serialize(ASN1UTF8String(topic))
                let type = topic.hasSuffix(".voip") ? "voip" : topic.hasSuffix(".complication") ? "complication" : "app"
                try coder.appendConstructedNode(identifier: .sequence) { inner in
                    try inner.serialize(ASN1UTF8String(type))
                }
            }
        }
        return serializer.serializedBytes
    }

    private func write(_ certificate: Certificate, key: P256.Signing.PrivateKey, name: String) throws {
        try certificate.serializeAsPEM().pemString.write(toFile: path("\(name).pem"), atomically: true, encoding: .utf8)
        try key.pemRepresentation.write(toFile: path("\(name)-key.pem"), atomically: true, encoding: .utf8)
    }
}
