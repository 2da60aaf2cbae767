// apnsim's `Security` module for extensions built on Linux (docs/own-extensions.md, "On Linux"), so `import Security`
// builds. The names an extension's URLSession delegate uses for a server-trust challenge (`SecTrust`,
// `SecTrustEvaluateWithError`, `CFError`) come with apnsim's UserNotifications (ServerTrustOnLinux.swift), which
// every file of an extension sees, since Foundation's `URLProtectionSpace.serverTrust` returns one.
@_exported import UserNotifications
