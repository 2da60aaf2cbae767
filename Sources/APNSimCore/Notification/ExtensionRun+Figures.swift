extension ExtensionRun {
    /// What the gateway's metrics and traces read of a run it keeps as the device wrote it (``EncodedJSON``): whether
    /// it ran, its kind and outcome, how long it took, and its downloads. Read from the JSON text's members
    /// (``JSONObjectSyntax/members(_:)``), not decoded whole: every receipt of a push to an app with an extension
    /// carries a run, and `JSONDecoder` took 42,000 instructions a push to say it had not run
    /// (`Benchmarks/instructions.sh`, the display path).
    public struct Figures: Sendable, Hashable {
        public var ran: Bool
        public var kind: String?
        public var outcome: String
        public var durationMs: Int
        public var downloads: [MediaDownload]

        /// The figures of `json`, or `nil` when it is not a run's JSON object.
        public init?(_ json: EncodedJSON<ExtensionRun>) {
            var text = json.text
            guard let figures = text.withUTF8({ Figures(bytes: UnsafeRawBufferPointer($0)) }) else { return nil }
            self = figures
        }

        private init?(bytes: UnsafeRawBufferPointer) {
            guard let members = JSONObjectSyntax.members(bytes) else { return nil }
            func value(_ key: String) -> JSONValue? {
                guard let member = members.first(where: { $0.key == key }) else { return nil }
                return JSONObjectSyntax.value(UnsafeRawBufferPointer(rebasing: bytes[member.value]))
            }
            guard case .bool(let ran)? = value("ran"), case .string(let outcome)? = value("outcome") else { return nil }
            self.ran = ran
            self.outcome = outcome
            if case .string(let kind)? = value("kind") { self.kind = kind }
            if case .number(let milliseconds)? = value("durationMs") { durationMs = Int(milliseconds) } else { durationMs = 0 }
            downloads = []
            if case .array(let elements)? = value("downloads") {
                for case .object(let download) in elements {
                    let status: Int? = if case .number(let code)? = download["status"] { Int(code) } else { nil }
                    let bytes: Int = if case .number(let count)? = download["bytes"] { Int(count) } else { 0 }
                    let duration: Int = if case .number(let taken)? = download["durationMs"] { Int(taken) } else { 0 }
                    let url: String = if case .string(let address)? = download["url"] { address } else { "" }
                    downloads.append(MediaDownload(url: url, status: status, bytes: bytes, durationMs: duration))
                }
            }
        }
    }
}
