import Foundation

/// Each series of a replica's `/metrics` labelled with the replica's name (docs/cluster.md, docs/metrics.md), so one
/// Prometheus scraping every replica keeps them apart even when it does not label its targets itself.
enum ReplicaLabel {
    /// `exposition` (Prometheus's text format, version 0.0.4) with `replica="NAME"` first among each sample's labels;
    /// comments (`# HELP`, `# TYPE`) and blank lines as they were.
    static func add(_ name: String, to exposition: [UInt8]) -> [UInt8] {
        let value = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        let label = Array("replica=\"\(value)\"".utf8)
        var labelled: [UInt8] = []
        labelled.reserveCapacity(exposition.count + exposition.count / 8)
        for line in exposition.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            defer { labelled.append(UInt8(ascii: "\n")) }
            guard let first = line.first, first != UInt8(ascii: "#"),
                  let end = line.firstIndex(where: { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: " ") }) else {
                labelled += line
                continue
            }
            labelled += line[..<end]
            if line[end] == UInt8(ascii: "{") {
                labelled += [UInt8(ascii: "{")] + label
                let rest = line[line.index(after: end)...]
                // `name{}` keeps no comma after the label.
                if rest.first != UInt8(ascii: "}") { labelled.append(UInt8(ascii: ",")) }
                labelled += rest
            } else {
                labelled += [UInt8(ascii: "{")] + label + [UInt8(ascii: "}")]
                labelled += line[end...]
            }
        }
        // The split gave one line more than there were line ends.
        if exposition.last == UInt8(ascii: "\n") || exposition.isEmpty { labelled.removeLast() }
        return labelled
    }
}
