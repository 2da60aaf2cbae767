import APNSimStore
import Foundation
import Hummingbird

/// `GET /v1/connections`: the provider connections the gateway refused or closed (docs/records.md), oldest first, with
/// the filters and long-poll of `GET /v1/deliveries`.
extension ControlAPI {
    var connectionRecords: ConnectionRecorder { actions.connectionRecords }

    func addConnectionRoutes(to v1: RouterGroup<BasicRequestContext>) {
        v1.get("connections") { request, _ in
            let query: (filter: ConnectionFilter, wait: Duration, count: Int)
            do throws(ControlAPIError) {
                query = try ControlQuery.connectionFilter(request.queryValues)
            } catch {
                return ControlJSON.error(error.description)
            }
            // Woken by each batch the recorder writes, and on a replica by each another replica writes.
            return try ControlJSON.response(try await self.connectionRecords.connections(matching: query.filter, count: query.count,
                                                                                         until: .now + query.wait))
        }
    }
}
