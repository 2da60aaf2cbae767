/// A harness's wait that ended without what it waited for (a device that never registered, a process that never
/// said it was ready), as one sentence naming it.
package struct HarnessError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
