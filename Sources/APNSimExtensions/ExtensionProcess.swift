import Logging

/// One app's extension process on a device: iOS starts it for a push, keeps it for the next one, and gives it one
/// request at a time (apnsim's choice where engineers disagree; parallel requests are not simulated). A crash or a
/// kill ends it; the next push starts it again.
actor ExtensionProcess {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var running = false
    /// The executable of an extension of kind `executable`, while it runs.
    private var external: ExternalExtensionProcess?

    /// Waits for the process's turn; `true` when this push starts the process.
    func acquire() async -> Bool {
        if busy {
            await withCheckedContinuation { waiting.append($0) }  // `release` hands the turn over with `busy` still set
        } else {
            busy = true
        }
        if external?.isRunning == false { (running, external) = (false, nil) }  // it ended between pushes
        defer { running = true }
        return !running
    }

    /// The running executable of a kind `executable` or `swift` extension, started with `command` (and its
    /// environment) if need be.
    func executable(logger: Logger, command: () async -> Result<([String], [String: String]), ExtensionError>)
        async -> Result<ExternalExtensionProcess, ExtensionError> {
        if let external, external.isRunning { return .success(external) }
        do throws(ExtensionError) {
            let (arguments, environment) = try await command().get()
            let started = try await ExternalExtensionProcess(command: arguments, environment: environment, logger: logger)
            external = started
            return .success(started)
        } catch {
            return .failure(error)
        }
    }

    /// Ends the turn; `alive: false` when the extension crashed or was killed.
    func release(alive: Bool) {
        running = alive
        if !alive {
            external?.terminate()
            external = nil
        }
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// The extension processes of one device, by app bundle ID.
actor ExtensionProcesses {
    private var processes: [String: ExtensionProcess] = [:]

    func process(for bundleID: String) -> ExtensionProcess {
        if let process = processes[bundleID] { return process }
        let process = ExtensionProcess()
        processes[bundleID] = process
        return process
    }

    /// Ends every extension process (the device is stopping).
    func terminateAll() async {
        for process in processes.values { await process.release(alive: false) }
    }
}
