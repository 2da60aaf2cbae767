import APNSimRules
import APNSimRuntime
import Foundation
import Hummingbird

/// `GET /v1/clock` and `POST /v1/clock`: the gateway's time, and moving a virtual clock ahead (`apnsim replay`
/// runs worlds on one, so a scenario says `advance: 61m` instead of waiting an hour).
extension ControlAPI {
    struct ClockView: Encodable {
        var now: Date
        /// Whether `POST /v1/clock` can move it.
        var virtual: Bool
        /// How far ahead of the system's clock it is.
        var offsetSeconds: Double
    }

    private struct Advance: Decodable {
        var advance: Double
    }

    func addClockRoutes(to v1: RouterGroup<BasicRequestContext>) {
        v1.get("clock") { _, _ in try ControlJSON.response(self.clockView) }
        v1.post("clock") { request, _ in try await self.advanceClock(request) }
    }

    private var clockView: ClockView {
        ClockView(now: clock.now(), virtual: virtualClock != nil, offsetSeconds: virtualClock?.offsetSeconds ?? 0)
    }

    private func advanceClock(_ request: Request) async throws -> Response {
        guard let virtualClock else {
            return ControlJSON.error("this gateway runs on the system's clock, which cannot be moved; apnsim replay and APNSimTesting run worlds on a virtual clock",
                                     status: .conflict)
        }
        let body: Advance
        do {
            body = try await ControlJSON.decode(Advance.self, from: request)
        } catch let error as ControlAPIError {
            return ControlJSON.error(error.description + "; give {\"advance\": SECONDS}")
        }
        guard body.advance.isFinite, (0...(366 * 86_400)).contains(body.advance) else {
            return ControlJSON.error("advance takes seconds from 0 to a year (the clock only moves forward); got \(body.advance)")
        }
        virtualClock.advance(by: body.advance)
        // What the new time makes due starts now, not at the next tick (a scheduled Live Activity).
        devices.startScheduled(now: clock.now())
        return try ControlJSON.response(clockView)
    }
}
