// What a test using APNSimTesting reads and builds: the world (`World`, `Fault`), the records (`DeliveryRecord`,
// `SendRecord`), the gateway's answers (`ProviderResponse`), its devices (`Gateway.DeviceStatus`) and scenario results, without importing apnsim's other modules itself.
@_exported import APNSimCore
@_exported import APNSimStore
@_exported import struct APNSimScenario.ScenarioResult
@_exported import struct APNSimScenario.StepResult
@_exported import struct APNSimProvider.ProviderResponse
@_exported import class APNSimGateway.Gateway
