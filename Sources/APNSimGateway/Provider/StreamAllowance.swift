import NIOHTTP2

/// How many streams a provider's client may have open at once, and which it has: the gateway keeps the limit it
/// advertised (SETTINGS_MAX_CONCURRENT_STREAMS) itself, rather than leaving it to NIOHTTP2, so that a stream over it is
/// refused as a stream (RST_STREAM REFUSED_STREAM, RFC 9113 §5.1.2 allows it) and its request recorded: NIOHTTP2 takes
/// it for a connection error and ends the whole connection without handing over the request. NIOHTTP2 is given a
/// placeholder limit no client reaches (``ProviderConnection/streamLimitPlaceholder``), written on the wire as the
/// advertised one (``ProtocolErrorWatch``).
///
/// A limit binds once the client has acknowledged the SETTINGS that carried it (RFC 9113 §6.5.3); until the first is
/// acknowledged there is none. A raised limit counts at once: the client may have seen it before its ACK arrives.
struct StreamAllowance {
    /// The limit of the last SETTINGS the client acknowledged that carried one; `nil` before any.
    private var acknowledged: Int?
    /// The SETTINGS frames written and not yet acknowledged, oldest first, with the limit each carried, if any.
    private var unacknowledged: [Int?] = []
    /// The client's streams the gateway took and has not closed.
    private(set) var open: Set<HTTP2StreamID> = []

    /// The limit in force, `nil` for none.
    var limit: Int? {
        guard let acknowledged else { return nil }
        return max(acknowledged, unacknowledged.compactMap { $0 }.max() ?? 0)
    }

    /// A SETTINGS frame was written, carrying `maxConcurrentStreams` or not.
    mutating func settingsSent(maxConcurrentStreams: Int?) {
        unacknowledged.append(maxConcurrentStreams)
    }

    /// The client acknowledged the oldest SETTINGS not yet acknowledged.
    mutating func settingsAcknowledged() {
        guard !unacknowledged.isEmpty else { return }
        if let limit = unacknowledged.removeFirst() { acknowledged = limit }
    }

    /// Takes a new stream, or returns the limit it is over (the stream is then not taken).
    mutating func take(_ streamID: HTTP2StreamID) -> Int? {
        if let limit, open.count >= limit { return limit }
        open.insert(streamID)
        return nil
    }

    mutating func closed(_ streamID: HTTP2StreamID) {
        open.remove(streamID)
    }
}
