import ArgumentParser
import Logging

/// `--log-level`: one of swift-log's levels, spelt as swift-log spells them; anything else is a usage error that
/// lists them (before, an unknown level quietly meant the default).
extension Logger.Level: @retroactive ExpressibleByArgument {}
