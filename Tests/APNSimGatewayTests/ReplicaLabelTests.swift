@testable import APNSimGateway
import Testing

/// A replica's `/metrics`: each sample labelled with the replica's name, comments as they were.
@Suite("Metrics: replica label")
struct ReplicaLabelTests {
    @Test("Each sample gets replica=\"NAME\" first among its labels, one without labels gets it alone; comments and line ends stay")
    func labelled() {
        let exposition = """
            # HELP apnsim_deliveries_total Accepted pushes the devices answered.
            # TYPE apnsim_deliveries_total counter
            apnsim_deliveries_total{outcome="displayed"} 3
            apnsim_devices_online 2
            apnsim_push_display_latency_seconds_bucket{le="0.005"} 1
            odd{} 0

            """
        let labelled = String(decoding: ReplicaLabel.add("r\"1", to: Array(exposition.utf8)), as: UTF8.self)
        #expect(labelled == """
            # HELP apnsim_deliveries_total Accepted pushes the devices answered.
            # TYPE apnsim_deliveries_total counter
            apnsim_deliveries_total{replica="r\\"1",outcome="displayed"} 3
            apnsim_devices_online{replica="r\\"1"} 2
            apnsim_push_display_latency_seconds_bucket{replica="r\\"1",le="0.005"} 1
            odd{replica="r\\"1"} 0

            """)
    }

    @Test("A gateway's own exposition, labelled, keeps every sample and labels each")
    func gatewayExposition() {
        let metrics = GatewayMetrics()
        metrics.connectionRefused("tls_error")
        let plain = String(decoding: metrics.exposition(.init(connections: 1, devicesOnline: 2, stored: 0, unacknowledged: 0)), as: UTF8.self)
        let labelled = String(decoding: ReplicaLabel.add("home", to: Array(plain.utf8)), as: UTF8.self)
        let samples = labelled.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(samples.count == plain.split(separator: "\n").filter { !$0.hasPrefix("#") }.count)
        #expect(!samples.isEmpty && samples.allSatisfy { $0.contains("{replica=\"home\"") }, "\(samples)")
    }
}
