import Synchronization

/// The metrics of one family of the registry, each found there once, at its first use, and kept by its labels: a
/// lookup in `PrometheusCollectorRegistry` builds the name and labels, hashes them and takes the registry's lock,
/// about 9,000 instructions, which a rich push paid twice and every batch of the record several times
/// (`Benchmarks/instructions.sh`). Made at first use, as the registry's were, so `GET /metrics` lists the same series.
final class MetricCache<Key: Hashable & Sendable, Metric: AnyObject & Sendable>: Sendable {
    private let metrics = Mutex<[Key: Metric]>([:])
    private let make: @Sendable (Key) -> Metric

    /// - Parameter make: finds or makes the registry's metric for a key.
    init(_ make: @escaping @Sendable (Key) -> Metric) {
        self.make = make
    }

    subscript(_ key: Key) -> Metric {
        metrics.withLock { metrics in
            if let metric = metrics[key] { return metric }
            let metric = make(key)
            metrics[key] = metric
            return metric
        }
    }
}
