import NIOPosix
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where an attachment's file is written: on the extension's own thread while writes are quick, as an extension on
/// iOS writes what it downloaded itself; on ``pool``'s threads for a while after one that was not.
///
/// Handing every write to the pool cost a rich push two thread hand-offs: with the devices' data on `/dev/shm`, the
/// device process spent about 340 µs of processor time a rich push with them and 260 µs without, and rich pushes went
/// a quarter faster; on this machine's disk the two came out level (`/proc` times around rich loads of
/// `Benchmarks/e2e.sh`'s kind, docs/speed.md). A file written to the page cache takes tens of microseconds,
/// and most of a millisecond on an ext4 whose inodes were freed in the last half minute (docs/speed.md): kernel work
/// either way, which the pool's threads would do on the same cores. A write that waited (its thread gave up the
/// processor) and took longer than ``slow`` says the disk itself is stalling (a full writeback queue, a network file
/// system); held there, the extension's thread is one of the few that every device's extensions share. So after such
/// a write, writes go to the pool for ``poolFor``, then back to the extension's thread. A write that took as long only
/// because its thread was preempted, as threads are on a busy machine, does not count: by the clock alone, writes on
/// this 2-core machine under load went to the pool most of the time.
public final class AttachmentWrites: Sendable {
    /// Longer than this, a write says the disk is stalling.
    public static let slow: Duration = .milliseconds(5)
    /// How long writes go to the pool after a slow one.
    public static let poolFor: Duration = .seconds(1)

    /// The process's: every device's extensions write through it.
    public static let shared = AttachmentWrites()

    /// Where files are written while the disk stalls: their blocking system calls kept off Swift's concurrency threads
    /// (as many as the machine has cores), which every device's extensions share.
    static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 8)
        pool.start()
        return pool
    }()

    private let poolUntil = Mutex<ContinuousClock.Instant?>(nil)

    public init() {}

    /// Runs `write`, a file's blocking system calls: here, or on ``pool`` while writes go there; a write run here is
    /// noted (``wrote(from:to:waited:)``).
    func perform(_ write: @escaping @Sendable () throws -> Void) async throws {
        let start = ContinuousClock.now
        if onPool(at: start) {
            try await Self.pool.runIfActive(write)
            return
        }
        let before = Self.waits()
        defer { wrote(from: start, to: .now, waited: before.map { Self.waits() != $0 } ?? true) }
        try write()
    }

    /// Whether a write starting at `now` goes to the pool.
    public func onPool(at now: ContinuousClock.Instant) -> Bool {
        poolUntil.withLock { until in
            guard let end = until else { return false }
            if now < end { return true }
            until = nil
            return false
        }
    }

    /// Notes a write on the extension's thread that started at `start` and ended at `end`; `waited` says whether its
    /// thread gave up the processor meanwhile (``waits``).
    public func wrote(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant, waited: Bool) {
        guard waited, end - start > Self.slow else { return }
        poolUntil.withLock { $0 = end + Self.poolFor }
    }

    /// How many times the calling thread has given up the processor to wait (its voluntary context switches), where the
    /// system counts them for a thread (Linux); elsewhere `nil`, and any slow write counts.
    public static func waits() -> Int? {
        #if os(Linux)
        var usage = rusage()
        let thread: Int32 = 1  // RUSAGE_THREAD (Linux's <sys/resource.h>), which Swift's Glibc leaves out
        guard getrusage(.init(thread), &usage) == 0 else { return nil }
        return usage.ru_nvcsw
        #else
        return nil
        #endif
    }
}
