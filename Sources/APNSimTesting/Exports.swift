// What a test using APNSimTesting reads and builds: the world (`World`, `Fault`), the records (`DeliveryRecord`,
// `SendRecord`, `InteractionRecord`), the gateway's answers (`ProviderResponse`), its devices (`Gateway.DeviceStatus`) and Live Activities (`LiveActivity`), without importing apnsim's other
// modules itself. A test that replays scenario files imports APNSimScenario beside it (`ScenarioRunner.replay`).
@_exported import APNSimRules
@_exported import APNSimStore
@_exported import struct APNSimProvider.ProviderResponse
@_exported import class APNSimGateway.Gateway
