import APNSimRules
import APNSimRuntime

/// Work a device starts and does not wait for (an extension's run, a build, ending its extension processes), run as
/// child tasks of whoever runs the device (``run()``), so each ends when the device stops instead of outliving it as an
/// unstructured task would. Jobs added before ``run()`` starts wait for it; jobs added after it ended are dropped.
final class DeviceJobs: Sendable {
    typealias Job = @Sendable () async -> Void

    private let jobs = EventQueue<Job>()

    func add(_ job: @escaping Job) {
        jobs.send(job)
    }

    /// Runs the jobs as they come, each in its own child task, until the task is cancelled; then every job still running
    /// is cancelled and awaited.
    func run() async {
        await withDiscardingTaskGroup { group in
            while let job = await jobs.next() {
                group.addTask { await job() }
            }
        }
    }

    /// No job is taken from now on (``run()`` returns once the running ones are done).
    func finish() {
        jobs.finish()
    }
}
