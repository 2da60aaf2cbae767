import Foundation
import Logging

/// The logger of every gateway, device and media server a test runs: errors only by default, so a green run prints
/// nothing alarming (many tests expect refusals, which the product logs as warnings with the compiler's "error:" lines
/// in them). `APNSIM_TEST_LOG_LEVEL=notice swift test` shows why each connection closed, for chasing a rare failure.
func testLogger(_ label: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = ProcessInfo.processInfo.environment["APNSIM_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .error
    return logger
}
