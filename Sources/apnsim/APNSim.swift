import ArgumentParser

@main
struct APNSim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apnsim",
        abstract: "An APNs-style end-to-end simulator: a fake APNs gateway, mock devices, and a record of what they showed.",
        subcommands: [UpCommand.self, GatewayCommand.self, DeviceCommand.self, MediaCommand.self, SendCommand.self, PushCommand.self,
                      ExtensionCommand.self, ReplayCommand.self]
    )
}
