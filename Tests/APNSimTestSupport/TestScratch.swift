import APNSimTestScratch
import Foundation

/// The test process's own temporary folder (Tests/APNSimTestScratch): TMPDIR names it from before the first test, so
/// `FileManager.default.temporaryDirectory` and every process a test starts write there, and it is removed when the
/// test process exits. `nil` when it could not be made (the tests then use the temporary directory as it was).
public enum TestScratch {
    public static var folder: String? {
        let path = String(cString: apnsim_test_scratch_folder())
        return path.isEmpty ? nil : path
    }
}
