import APNSimStore
import Foundation
import Hummingbird

/// `GET /metrics`: the gateway's metrics in Prometheus's text exposition format (docs/metrics.md), behind the control
/// token when one is set. What is queued for the record is written first, so the counters include every request
/// answered before the scrape. A replica of several labels each series with its name (``ReplicaLabel``).
extension ControlAPI {
    func addMetricsRoute(to router: Router<BasicRequestContext>) {
        router.get("metrics") { _, _ in
            try? await self.recorder.flush()
            try? await self.deliveries.flush()
            let counts = self.devices.counts
            var body = self.actions.metrics.exposition(.init(connections: self.actions.connections.count, devicesOnline: counts.online,
                                                             stored: counts.stored, unacknowledged: counts.unacknowledged))
            if let replica = self.forwarding?.links.name { body = ReplicaLabel.add(replica, to: body) }
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                            body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
    }
}
