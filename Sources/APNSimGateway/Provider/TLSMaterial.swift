import APNSimRules
import NIOSSL
import SwiftASN1
import X509

/// The gateway's TLS context and provider CA, loaded once at start-up from ``GatewayConfiguration/TLSFiles``.
struct TLSMaterial {
    let sslContext: NIOSSLContext
    let providerRoots: [Certificate]
    /// The device link's context: the same certificate, and a device identity certificate from the CA required.
    let deviceSSLContext: NIOSSLContext

    init(_ files: GatewayConfiguration.TLSFiles) throws {
        let chain: [NIOSSLCertificate]
        let key: NIOSSLPrivateKey
        let caCertificates: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(files.certificateChain)
            key = try NIOSSLPrivateKey(file: files.privateKey, format: .pem)
            caCertificates = try NIOSSLCertificate.fromPEMFile(files.providerCA)
        } catch {
            throw GatewayError("cannot load the gateway's TLS files (\(files.certificateChain), \(files.privateKey), \(files.providerCA)): \(error); run Certs/generate.sh to make them")
        }
        var tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                          privateKey: .privateKey(key))
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = ["h2"]
        // Ask every client for a certificate, require none (Apple, "Establishing a connection to APNs"): one listener,
        // both auth modes.
        tls.certificateVerification = .optionalVerification
        tls.trustRoots = .certificates(caCertificates)
        tls.sendCANameList = true
        sslContext = try NIOSSLContext(configuration: tls)
        var deviceTLS = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) },
                                                                privateKey: .privateKey(key))
        deviceTLS.minimumTLSVersion = .tlsv12
        deviceTLS.certificateVerification = .noHostnameVerification
        deviceTLS.trustRoots = .certificates(caCertificates)
        deviceSSLContext = try NIOSSLContext(configuration: deviceTLS)
        providerRoots = try caCertificates.map { try Certificate(derEncoded: $0.toDERBytes()) }
    }
}

/// A gateway set-up problem, said in a sentence.
public struct GatewayError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
