import APNSimRules
import Foundation

/// How replays are reported: a test runner's text (each step, what was expected and what happened, and the
/// closing `N passed, N failed`), and JUnit XML for CI systems.
public enum ScenarioReport {
    /// One scenario: its verdict, then each step.
    public static func text(_ result: ScenarioResult) -> String {
        var lines = ["\(result.passed ? "PASS" : "FAIL")  \(result.path)  \(result.name)  (\(seconds(result.duration)))"]
        if let error = result.error {
            lines.append("      \(error)")
        }
        for step in result.steps {
            let mark = step.skipped ? "-" : (step.failures.isEmpty ? "✓" : "✗")
            lines.append("  \(mark) \(step.number). \(step.title) (line \(step.line)): \(step.happened)")
            for failure in step.failures { lines.append("      \(failure)") }
        }
        return lines.joined(separator: "\n")
    }

    /// The closing line.
    public static func summary(_ results: [ScenarioResult], duration: Duration) -> String {
        let failed = results.filter { !$0.passed }.count
        return "\(results.count - failed) passed, \(failed) failed (\(seconds(duration)))"
    }

    /// JUnit XML: one test suite, one test case per scenario (its class name the file), a failure per failed one.
    public static func junit(_ results: [ScenarioResult], duration: Duration) -> String {
        let failed = results.filter { !$0.passed }.count
        var xml = [#"<?xml version="1.0" encoding="UTF-8"?>"#,
                   #"<testsuites name="apnsim replay" tests="\#(results.count)" failures="\#(failed)" time="\#(plain(duration))">"#,
                   #"  <testsuite name="apnsim replay" tests="\#(results.count)" failures="\#(failed)" time="\#(plain(duration))">"#]
        for result in results {
            let head = #"    <testcase classname="\#(escape(result.path))" name="\#(escape(result.name))" time="\#(plain(result.duration))""#
            if result.passed {
                xml.append(head + "/>")
            } else {
                let message = result.error ?? result.steps.first { !$0.failures.isEmpty }?.failures.first ?? "failed"
                xml.append(head + ">")
                xml.append(#"      <failure message="\#(escape(message))">\#(escape(result.failureText))</failure>"#)
                xml.append("    </testcase>")
            }
        }
        xml += ["  </testsuite>", "</testsuites>", ""]
        return xml.joined(separator: "\n")
    }

    static func escape(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "\n", "\t": escaped.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20: escaped += " "  // not allowed in XML 1.0
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    private static func plain(_ duration: Duration) -> String {
        String(format: "%.3f", duration.inSeconds)
    }

    static func seconds(_ duration: Duration) -> String {
        String(format: "%.2f s", duration.inSeconds)
    }
}
