extension ExtensionRun {
    /// What the gateway's metrics and traces read of a run it keeps as the device wrote it (``EncodedJSON``): whether
    /// it ran, its kind and outcome, how long it took, and its downloads. Read from the JSON text's members
    /// (``JSONObjectSyntax/Scanner/eachMember(depth:_:)``), not decoded whole: every receipt of a push to an app with an extension
    /// carries a run, and `JSONDecoder` took 42,000 instructions a push to say it had not run
    /// (`Benchmarks/instructions.sh`, the display path).
    public struct Figures: Sendable, Hashable {
        public var ran: Bool
        public var kind: String?
        public var outcome: String
        public var durationMs: Int
        public var downloads: [MediaDownload]

        /// The figures of a run that ran, `nil` for one that did not or for what is not a run's JSON object: what the
        /// gateway's metrics and traces read. A run that did not starts `{"ran":false,` as a device writes it, and is
        /// known by that without reading the rest: every receipt of a plain push to an app with an extension carries one
        /// (7,000 instructions a push, `Benchmarks/instructions.sh`, the display path). Written otherwise, it is read.
        public static func ofRunThatRan(_ json: EncodedJSON<ExtensionRun>) -> Figures? {
            if json.text.utf8.starts(with: #"{"ran":false,"#.utf8) { return nil }
            guard let figures = Figures(json), figures.ran else { return nil }
            return figures
        }

        /// The figures of `json`, or `nil` when it is not a run's JSON object.
        public init?(_ json: EncodedJSON<ExtensionRun>) {
            var text = json.text
            guard let figures = text.withUTF8({ Figures(bytes: UnsafeRawBufferPointer($0)) }) else { return nil }
            self = figures
        }

        /// One pass over the run's members, making only the few values read: a run's diagnostic and log are passed
        /// over, not read into strings (`Benchmarks/instructions.sh`, the rich path: 30,000 instructions a receipt
        /// when each member was made and looked up by name).
        private init?(bytes: UnsafeRawBufferPointer) {
            var (ran, outcome, kind, durationMs): (Bool?, String?, String?, Int?) = (nil, nil, nil, nil)
            var downloadsRead = false
            var downloads: [MediaDownload] = []
            var scanner = JSONObjectSyntax.Scanner(bytes: bytes)
            scanner.skipWhitespace()
            let read = scanner.eachMember(depth: 1) { key, place in
                let value = UnsafeRawBufferPointer(rebasing: bytes[place])
                // A key written twice counts as written first, as when the members were looked up by name.
                switch Key(key) {
                case .ran where ran == nil: ran = Self.bool(value)
                case .outcome where outcome == nil: outcome = Self.string(value)
                case .kind where kind == nil: kind = Self.string(value)
                case .durationMs where durationMs == nil: durationMs = Self.int(value)
                case .downloads where !downloadsRead: (downloads, downloadsRead) = (Self.downloads(value), true)
                default: break
                }
            }
            scanner.skipWhitespace()
            guard read, scanner.isAtEnd, let ran, let outcome else { return nil }
            (self.ran, self.outcome, self.kind, self.durationMs, self.downloads) = (ran, outcome, kind, durationMs ?? 0, downloads)
        }

        /// The members read, a run's and its downloads', by the bytes of their keys.
        private enum Key {
            case ran, outcome, kind, durationMs, downloads
            case url, status, bytes

            init?(_ key: UnsafeRawBufferPointer) {
                func named(_ name: StaticString) -> Bool {
                    key.elementsEqual(UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
                }
                switch key.count {
                case 3 where named("ran"): self = .ran
                case 3 where named("url"): self = .url
                case 4 where named("kind"): self = .kind
                case 5 where named("bytes"): self = .bytes
                case 6 where named("status"): self = .status
                case 7 where named("outcome"): self = .outcome
                case 9 where named("downloads"): self = .downloads
                case 10 where named("durationMs"): self = .durationMs
                default: return nil
                }
            }
        }

        /// The downloads of an array of them; what is not a download object is passed over.
        private static func downloads(_ bytes: UnsafeRawBufferPointer) -> [MediaDownload] {
            var downloads: [MediaDownload] = []
            var scanner = JSONObjectSyntax.Scanner(bytes: bytes)
            _ = scanner.eachElement(depth: 1) { scanner in
                guard scanner.peek == UInt8(ascii: "{") else { return scanner.value(depth: 1) }
                var download = MediaDownload(url: "", status: nil, bytes: 0, durationMs: 0)
                let read = scanner.eachMember(depth: 2) { key, place in
                    let value = UnsafeRawBufferPointer(rebasing: bytes[place])
                    // A key written twice counts as written last here, as it always has.
                    switch Key(key) {
                    case .status: download.status = int(value)
                    case .bytes: download.bytes = int(value) ?? 0
                    case .durationMs: download.durationMs = int(value) ?? 0
                    case .url: download.url = string(value) ?? ""
                    default: break
                    }
                }
                if read { downloads.append(download) }
                return read
            }
            return downloads
        }

        private static func bool(_ value: UnsafeRawBufferPointer) -> Bool? {
            if case .bool(let flag)? = JSONObjectSyntax.value(value) { flag } else { nil }
        }

        private static func string(_ value: UnsafeRawBufferPointer) -> String? {
            if case .string(let text)? = JSONObjectSyntax.value(value) { text } else { nil }
        }

        private static func int(_ value: UnsafeRawBufferPointer) -> Int? {
            if case .number(let number)? = JSONObjectSyntax.value(value) { Int(number) } else { nil }
        }
    }
}
