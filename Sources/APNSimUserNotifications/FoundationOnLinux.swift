// Names an extension written for Apple's systems uses that swift-corelibs-foundation lacks, so its code builds
// unchanged on Linux (docs/own-extensions.md, "On Linux").
#if !canImport(Darwin)
extension Data.ReadingOptions {
    /// Apple's older name for `mappedIfSafe`, still common in extensions that read a downloaded file.
    public static let mappedRead = Data.ReadingOptions.mappedIfSafe
}
#endif
