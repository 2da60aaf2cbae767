import APNSimDevice
import APNSimExtensions
import APNSimRules
import APNSimTestKit
import Foundation
import Logging
import Testing

extension Stress {
    @Suite("Stress: registration with a built Swift extension")
    struct SwiftExtensionRegistrationStressTests {
        /// A cached build finishes in microseconds, racing the device link coming up: one that finished before the
        /// device marked its link up once waited for a welcome that had passed, and its app never registered (fixed in
        /// `DeviceHost`'s welcome). A device that never registers is what this looks for, so the bound is a guard
        /// against a hang, not a speed.
        @Test("A device whose Swift extension is built already registers as soon as it links, every time of 100")
        func builtSwiftExtensionRegisters() async throws {
            let source = repositoryRoot.appendingPathComponent("Scenarios/extensions/swift/NotificationService.swift").path
            _ = try await SwiftExtensionBuilder().build(source)  // built (or found built) once, before any device links
            let app = appWithExtension(.swift) { $0.source = source }
            let logger = { var logger = Logger(label: "apnsim.device.test"); logger.logLevel = .critical; return logger }()
            try await withGateway { harness in
                var unregistered: [Int] = []
                for attempt in 1...100 {
                    let host = DeviceHost(configuration: deviceConfiguration(harness, id: "device-\(attempt)", apps: [app]), logger: logger)
                    let registered = await withTaskGroup(of: Bool.self) { tasks in
                        tasks.addTask { try? await host.run(); return false }
                        tasks.addTask { await host.registers(within: .seconds(120)) }
                        defer { tasks.cancelAll() }
                        return await tasks.next() ?? false
                    }
                    if !registered { unregistered.append(attempt) }
                }
                #expect(unregistered.isEmpty, "devices never registered: \(unregistered)")
            }
        }
    }
}
