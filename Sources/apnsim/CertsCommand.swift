import APNSimSandbox
import ArgumentParser
import Foundation

/// `apnsim certs`: where the development PKI a provider needs is (the CA to trust, the key to sign with, the client
/// certificates), printed, one file's contents printed, or all of it copied to a folder.
struct CertsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "certs",
        abstract: "Show where the development PKI is (the CA providers trust, the signing key), print a file of it, or export it.",
        discussion: "Without options it lists each file and what it is for. The PKI is Certs/ in a checkout of apnsim, else the one built into apnsim, written to its data folder (APNSIM_HOME) on first use."
    )

    @Option(help: "The PKI's folder. Default: Certs in a checkout of apnsim, else apnsim's data folder. Environment: APNSIM_CERTS.")
    var certs: String? = EnvironmentVariables.value("APNSIM_CERTS")

    @Option(name: .customLong("print"), help: "Print one file of the PKI (its name as listed, such as ca.pem or AuthKey_SIMKEY0001.p8) to standard output.")
    var printed: String?

    @Option(help: "Copy every file of the PKI into this folder (made if missing; files there with the same names are replaced).")
    var export: String?

    /// The files a provider or a device uses, with what each is for, in the order they are listed.
    static let files: [(name: String, use: String)] = [
        ("ca.pem", "the root CA above the gateway's certificate: providers trust it"),
        ("AuthKey_SIMKEY0001.p8", "token auth: the signing key of key SIMKEY0001, team SIMTEAM001"),
        ("AuthKey_SIMKEY0001.pub.pem", "its public half, as the world file names it"),
        ("provider-development.pem", "certificate auth, development: the client certificate"),
        ("provider-development-key.pem", "its private key"),
        ("provider-development-bundle.pem", "both in one file"),
        ("provider-production.pem", "certificate auth, production: the client certificate"),
        ("provider-production-key.pem", "its private key"),
        ("provider-production-bundle.pem", "both in one file"),
        ("gateway.pem", "the gateway's chain: its certificate (api.sandbox.push.apple.com, localhost, gateway, apnsim-gateway…), then the intermediate's"),
        ("gateway-key.pem", "its private key"),
        ("device.pem", "the devices' certificate on the device link"),
        ("device-key.pem", "its private key"),
        ("ca-key.pem", "the CA's private key (Certs/generate.sh issues more with it)"),
        ("server-ca.pem", "the intermediate CA under it that issued the gateway's certificate"),
        ("server-ca-key.pem", "its private key"),
    ]

    func validate() throws {
        if printed != nil, export != nil { throw ValidationError("--print and --export do different things: give one of them") }
        if let printed, !Self.files.contains(where: { $0.name == printed }) {
            throw ValidationError("--print takes one of the PKI's files (\(Self.files.map(\.name).joined(separator: ", "))); got \(printed)")
        }
    }

    func run() throws {
        let found = try DevelopmentFiles().find(.certs, given: certs)
        let folder = URL(fileURLWithPath: found.path)
        if let printed {
            let file = folder.appendingPathComponent(printed)
            guard let data = FileManager.default.contents(atPath: file.path) else {
                throw ValidationError("\(file.path) cannot be read: the PKI in \(found.path) has no \(printed)")
            }
            FileHandle.standardOutput.write(data)
            return
        }
        if let export {
            let target = URL(fileURLWithPath: export)
            do {
                try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
                for (name, _) in Self.files where FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path) {
                    let copy = target.appendingPathComponent(name)
                    try? FileManager.default.removeItem(at: copy)
                    try FileManager.default.copyItem(at: folder.appendingPathComponent(name), to: copy)
                }
            } catch {
                throw ValidationError("--export \(export): cannot copy the PKI there (\(error.localizedDescription))")
            }
            Console.say("apnsim certs: copied the development PKI from \(found.described) to \(target.standardizedFileURL.path)")
            return
        }
        Console.say("the development PKI: \(found.described)")
        Console.say("(one PKI for every apnsim: its keys are public, so trust its CA in a test's client only, never in a system's trust store)")
        for (name, use) in Self.files {
            Console.say("  \(folder.appendingPathComponent(name).path.padding(toLength: max(48, found.path.count + 34), withPad: " ", startingAt: 0)) \(use)")
        }
    }
}
