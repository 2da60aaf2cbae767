// The CoreGraphics an extension uses that Linux's Foundation lacks: Foundation there has `CGRect`, `CGPoint`,
// `CGSize` and `CGFloat`, not `dictionaryRepresentation`. `apnsim extension build` compiles this file as a module
// named `CoreGraphics` on Linux, so `import CoreGraphics` builds unchanged; Apple's systems have the real one.
#if !canImport(Darwin)
import Foundation

extension CGRect {
    /// The rectangle as CoreGraphics writes it into a dictionary: `X`, `Y`, `Width` and `Height`.
    public var dictionaryRepresentation: NSDictionary {
        ["X": Double(origin.x), "Y": Double(origin.y), "Width": Double(size.width), "Height": Double(size.height)] as NSDictionary
    }
}
#endif
