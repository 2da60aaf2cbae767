#if canImport(Glibc)
import APNSimRuntime
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import APNSimRules
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import UnixSignals

/// How every long-running `apnsim` command lives and ends: its services run until Ctrl-C (SIGINT) or SIGTERM,
/// or, for a process another `apnsim` started, until that parent is gone; then they shut down gracefully and the
/// command says so. A second signal ends the process at once.
enum ProcessLife {
    /// Runs `services` until told to stop, then shuts them down gracefully.
    /// - Parameters:
    ///   - name: how the command names itself in what it prints (`gateway`, `device iphone-1`).
    ///   - stopWhenStdinCloses: also stop when standard input reaches its end. `apnsim up` gives each device a
    ///     pipe as standard input and keeps the other end: the kernel closes it when `apnsim up` dies, however it
    ///     dies (SIGKILL included), so no device outlives it. Portable, unlike Linux's `PR_SET_PDEATHSIG`.
    ///   - started: printed once the signals are trapped, so whoever waits for it may signal from then on.
    static func run(_ services: [any Service], name: String, logger: Logger, stopWhenStdinCloses: Bool = false,
                    started: String? = nil) async throws {
        let group = ServiceGroup(configuration: .init(
            services: services.map { .init(service: $0, successTerminationBehavior: .gracefullyShutdownGroup) },
            logger: logger))
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        if let started { Console.say("apnsim \(name): \(started)") }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            tasks.addTask {
                var received = signals.makeAsyncIterator()
                guard let first = await received.next() else { return }
                Console.say("apnsim \(name): \(first) received, stopping (again to stop at once)")
                await group.triggerGracefulShutdown()
                guard let second = await received.next() else { return }
                Console.say("apnsim \(name): \(second) received again, exiting now")
                exit(1)
            }
            // What the services' bursts of work free goes back to the system (Allocator).
            tasks.addTask { await Allocator.keepReleasingFreed() }
            if stopWhenStdinCloses {
                tasks.addTask {
                    try await waitForEndOfStandardInput()
                    guard !Task.isCancelled else { return }
                    Console.say("apnsim \(name): the process that started it is gone, stopping")
                    await group.triggerGracefulShutdown()
                }
            }
            // The service group ends first (on a signal, a closed pipe, or a service's own end); then the watchers go.
            try await tasks.next()
            tasks.cancelAll()
        }
        Console.say("apnsim \(name): stopped")
    }

    /// Returns when standard input has no more to give (its writer closed it or died), or the task is cancelled.
    private static func waitForEndOfStandardInput() async throws {
        let input = dup(0)  // NIO takes ownership and closes it; fd 0 itself stays open
        let channel = try await NIOPipeBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .takingOwnershipOfDescriptor(input: input) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        try await channel.executeThenClose { inbound, _ in
            for try await _ in inbound {}
        }
    }
}
