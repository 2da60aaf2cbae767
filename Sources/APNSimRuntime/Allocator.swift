#if canImport(Glibc)
import Glibc
#endif

/// How apnsim's processes use glibc's allocator, which holds on to what they free. A process holding a hundred
/// thousand devices allocates from every event-loop and pool thread, and answers a listing of them with tens of
/// megabytes at once; with glibc's defaults what it freed stayed resident (`Benchmarks/scale.sh 100000`: the gateway
/// held 1,041 MiB after a push, a push-to-start push and a broadcast to each device, 817 MiB as tuned here). glibc,
/// "Memory Allocation Tunables", https://www.gnu.org/software/libc/manual/html_node/Memory-Allocation-Tunables.html.
/// Elsewhere (macOS) these do nothing.
public enum Allocator {
    /// Call first thing in `main`:
    /// - one arena per core instead of eight: a thread that finds an arena busy waits rather than taking another, each
    ///   arena keeping what it freed;
    /// - blocks of 256 KiB and more mapped on their own, and so given back when freed: by default glibc raises that
    ///   threshold to the largest block freed, so a listing's buffer once freed was kept for the next.
    /// `MALLOC_ARENA_MAX` or `MALLOC_MMAP_THRESHOLD_` in the environment decide instead when set.
    public static func tune() {
        #if canImport(Glibc)
        guard let mallopt = function("mallopt", as: (@convention(c) (Int32, Int32) -> Int32).self) else { return }
        if getenv("MALLOC_ARENA_MAX") == nil { _ = mallopt(arenaMax, Int32(max(2, sysconf(Int32(_SC_NPROCESSORS_ONLN))))) }
        if getenv("MALLOC_MMAP_THRESHOLD_") == nil { _ = mallopt(mmapThreshold, 256 * 1024) }
        #endif
    }

    /// Gives the memory freed since back to the system (`malloc_trim`): after a response of many megabytes, whose
    /// making freed as many in small blocks. It walks every arena, a few milliseconds for a large process, so callers
    /// keep it for rare, large work.
    public static func releaseFreed() {
        #if canImport(Glibc)
        guard let trim = function("malloc_trim", as: (@convention(c) (Int) -> Int32).self) else { return }
        _ = trim(0)
        #endif
    }

    /// Every `interval`, gives back what was freed (``releaseFreed()``) when the process has grown since it last did
    /// and either grew by `growth` or more, or has stopped growing: what a burst (a hundred thousand pushes, a
    /// broadcast to as many activities) freed in small blocks goes back during it and once it is over, as jemalloc's
    /// decay gives back dirty pages after seconds. A process whose memory holds still pays nothing; a release takes
    /// milliseconds in a gateway holding 100,000 devices. Returns when the task is cancelled, and not before (where
    /// memory cannot be read it only waits).
    public static func keepReleasingFreed(every interval: Duration = .seconds(5), growth: Int = 32 << 20) async {
        let still = 1 << 20
        var released = residentBytes(), previous = released
        while (try? await Task.sleep(for: interval)) != nil {
            guard let base = released, let last = previous, let now = residentBytes() else { continue }
            previous = now
            guard now >= base + growth || (now > base + still && abs(now - last) < still) else { continue }
            releaseFreed()
            released = residentBytes()
            previous = released
        }
    }

    /// The process's resident memory, from `/proc/self/statm`; `nil` where there is none.
    public static func residentBytes() -> Int? {
        #if canImport(Glibc)
        guard let file = fopen("/proc/self/statm", "r") else { return nil }
        defer { fclose(file) }
        var size = 0, resident = 0
        guard withUnsafeMutablePointer(to: &size, { sizePointer in
            withUnsafeMutablePointer(to: &resident) { residentPointer in
                withVaList([sizePointer, residentPointer]) { vfscanf(file, "%ld %ld", $0) }
            }
        }) == 2 else { return nil }
        return resident * sysconf(Int32(_SC_PAGESIZE))
        #else
        return nil
        #endif
    }

    #if canImport(Glibc)
    /// `M_ARENA_MAX` and `M_MMAP_THRESHOLD` in `<malloc.h>`, which Swift's Glibc module does not bring in; nor its
    /// functions, found by name.
    private static let arenaMax: Int32 = -8
    private static let mmapThreshold: Int32 = -3

    private static func function<F>(_ name: String, as type: F.Type) -> F? {
        dlsym(nil, name).map { unsafeBitCast($0, to: type) }
    }
    #endif
}
