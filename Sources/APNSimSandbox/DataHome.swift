import Foundation

/// The folder where apnsim keeps what outlives one run for one user: each device's identity (the installation IDs its
/// tokens come from) and the development PKI an installed binary writes on first use.
///
/// `APNSIM_HOME` when set (the image sets it to its volume, `/var/lib/apnsim`); else the platform's per-user data
/// folder: `$XDG_DATA_HOME/apnsim`, or `~/.local/share/apnsim`, on Linux (the XDG Base Directory Specification,
/// https://specifications.freedesktop.org/basedir-spec/latest/), and `~/Library/Application Support/apnsim` on macOS
/// (Apple's "File System Programming Guide", "macOS Library Directory Details").
public enum DataHome {
    /// The variable that names the folder outright.
    public static let variable = "APNSIM_HOME"

    /// The folder for `environment` (this process's unless a test gives another).
    public static func folder(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let given = environment[variable], !given.isEmpty {
            return URL(fileURLWithPath: given).standardizedFileURL
        }
        #if canImport(Darwin)
        let library = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent("Library/Application Support")
        return library.appendingPathComponent("apnsim")
        #else
        // The specification ignores a relative XDG_DATA_HOME.
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data).appendingPathComponent("apnsim")
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".local/share/apnsim")
        #endif
    }

    /// Where the device (or fleet) with ID `device` keeps its identity when no `--data` names a folder: a folder of
    /// its own, so two devices, or two containers' fleets sharing one volume, never share a file.
    public static func device(_ device: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        folder(environment: environment).appendingPathComponent("devices").appendingPathComponent(safeName(device))
    }

    /// `name` as one path component: a device ID is the user's text, and `/` or `..` in it must not leave the folder.
    static func safeName(_ name: String) -> String {
        let kept = name.map { $0 == "/" || $0 == "\\" || $0 == "\0" ? "_" : $0 }
        let text = String(kept)
        return text.isEmpty || text == "." || text == ".." ? "_\(text)" : text
    }
}
