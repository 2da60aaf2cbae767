/// Something an extension could not do (download or save an attachment, take a bundled file, start its process or
/// write to it), in a sentence naming what.
public struct ExtensionError: Error, CustomStringConvertible, Sendable {
    public var description: String
    /// The HTTP status a download's server answered, when the error is that answer (a 404).
    public var httpStatus: Int?
    public init(_ description: String, httpStatus: Int? = nil) {
        self.description = description
        self.httpStatus = httpStatus
    }
}
