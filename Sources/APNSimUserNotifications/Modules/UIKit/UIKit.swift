// apnsim's `UIKit` module for code built on Linux (docs/own-extensions.md, "On Linux"), so a service extension's
// `import UIKit` (Xcode's older template had it) builds: it brings Foundation and apnsim's CoreGraphics, as Apple's
// does. UIKit's views and images (`UIImage`, `UIColor`…) are not here: a file that uses them does not build.
@_exported import Foundation
@_exported import CoreGraphics
