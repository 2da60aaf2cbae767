import Foundation

// Each request's content comes back with " (from a package)" added to its body.
while let line = readLine() {
    guard let message = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
          message["type"] as? String == "request", let id = message["id"] as? String,
          var content = message["content"] as? [String: Any] else { continue }
    content["body"] = "\(content["body"] as? String ?? "") (from a package)"
    let reply = try JSONSerialization.data(withJSONObject: ["type": "content", "id": id, "content": content])
    FileHandle.standardOutput.write(reply + Data("\n".utf8))
}
