import APNSimRules
import APNSimRuntime
import ArgumentParser
import Foundation

@main
struct APNSim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apnsim",
        abstract: "An APNs-style end-to-end simulator: a fake APNs gateway, mock devices, and a record of what they showed.",
        subcommands: [UpCommand.self, GatewayCommand.self, DeviceCommand.self, MediaCommand.self, SendCommand.self, PushCommand.self,
                      ExtensionCommand.self, ReplayCommand.self, ActivityCommand.self, ChannelCommand.self, TokensCommand.self,
                      TapCommand.self, DismissCommand.self, FocusCommand.self, SummaryCommand.self,
                      DeliveryLogCommand.self, CertsCommand.self]
    )

    /// Runs ``run()`` on a task while the main thread waits for it. An `async` main would hand the main thread to
    /// `dispatch_main()`, which ends it with `pthread_exit`; Valgrind (the instruction counts of `Benchmarks/`) stops
    /// with an internal error when that thread then waits for signals. apnsim runs nothing on the main actor.
    static func main() {
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            await run()
            finished.signal()
        }
        finished.wait()
    }

    /// Parses as ArgumentParser does (a mistake on the command line gets its message and the usage), then runs; an
    /// error while running is one sentence on standard error and exit status 1, without the usage text after it:
    /// `apnsim up` with a broken world file says where the mistake is, and nothing about options.
    static func run() async {
        Allocator.tune()
        let command: any ParsableCommand
        do {
            command = try parseAsRoot()
        } catch {
            exit(withError: error)
        }
        // A variable the command read that is not what its option takes, and which no option on the command line
        // overrides: one sentence naming it, as a bad option would get.
        if let problem = EnvironmentVariables.problem(ignoring: Array(CommandLine.arguments.dropFirst())) {
            Console.error("apnsim: \(problem.sentence)")
            Foundation.exit(64)
        }
        (command as? any LoggingCommand)?.log.bootstrap()
        do {
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                var command = command
                try command.run()
            }
        } catch let code as ExitCode {
            exit(withError: code)
        } catch let error as CleanExit {
            exit(withError: error)
        } catch where String(reflecting: type(of: error)).hasPrefix("ArgumentParser.") {
            // `apnsim up --help` parses to ArgumentParser's own help command, whose run throws its internal
            // CommandError: ArgumentParser prints the help and exits 0.
            exit(withError: error)
        } catch {
            Console.error("apnsim: \(message(of: error))")
            Foundation.exit(1)
        }
    }

    /// The error's sentence (a ValidationError's message, an error's description).
    private static func message(of error: any Error) -> String {
        if let validation = error as? ValidationError { return validation.message }
        return String(describing: error)
    }
}
