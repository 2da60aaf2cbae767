/// Something an extension could not do (download or save an attachment, take a bundled file, start its process or
/// write to it), in a sentence naming what.
public struct ExtensionError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
