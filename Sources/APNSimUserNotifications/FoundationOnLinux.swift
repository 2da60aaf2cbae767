// Names an extension written for Apple's systems uses that swift-corelibs-foundation lacks, so its code builds
// unchanged on Linux (docs/own-extensions.md, "On Linux").
#if !canImport(Darwin)
extension Data.ReadingOptions {
    /// Apple's older name for `mappedIfSafe`, still common in extensions that read a downloaded file.
    public static let mappedRead = Data.ReadingOptions.mappedIfSafe
}
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#if canImport(APNSimRules)
import APNSimRules
#endif

extension URLResponse {
    /// The name Apple's Foundation suggests for a download, where swift-corelibs-foundation answers "Unknown" for
    /// any HTTP response without a `Content-Disposition` filename. As Apple documents it: the filename the
    /// `Content-Disposition` header gives, else the URL's last path component, else its host, else "unknown"; with
    /// the extension of the MIME type added when the name has none and apnsim knows the type (Apple does so "in most
    /// cases", unspecified). Extensions name attachment files from it, so "Unknown" would attach nothing.
    ///
    /// Apple, "suggestedFilename", https://developer.apple.com/documentation/foundation/urlresponse/suggestedfilename
    ///
    /// It shadows Foundation's property in code that imports UserNotifications (every extension does).
    public var suggestedFilename: String? {
        let disposition = (self as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Disposition")
        var name = disposition.flatMap(Self.filename(inContentDisposition:))
        if name == nil, let url, !url.lastPathComponent.isEmpty, url.lastPathComponent != "/" { name = url.lastPathComponent }
        if name == nil, let host = url?.host, !host.isEmpty { name = host }
        var suggested = name ?? "unknown"
        if !suggested.contains("."), let mimeType, let fileExtension = AttachmentRules.fileExtension(forMIME: mimeType) {
            suggested += ".\(fileExtension)"
        }
        return suggested
    }

    /// The filename a `Content-Disposition` value gives (RFC 6266): `filename*=UTF-8''…` first, else `filename=`,
    /// quoted or not; only its last path component, as a browser saves it.
    static func filename(inContentDisposition value: String) -> String? {
        var plain: String?
        var extended: String?
        for parameter in value.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2 else { continue }
            switch pair[0].lowercased() {
            case "filename*":
                // charset'language'percent-encoded-name
                let parts = pair[1].split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                if parts.count == 3 { extended = String(parts[2]).removingPercentEncoding }
            case "filename":
                var quoted = pair[1]
                if quoted.count >= 2, quoted.hasPrefix("\""), quoted.hasSuffix("\"") { quoted = String(quoted.dropFirst().dropLast()) }
                plain = quoted.replacingOccurrences(of: "\\\"", with: "\"")
            default:
                continue
            }
        }
        guard let name = extended ?? plain else { return nil }
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        return last.isEmpty || last == "." || last == ".." ? nil : last
    }
}
#endif
