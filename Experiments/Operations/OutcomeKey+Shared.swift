import ExperimentKit

/// The results more than one experiment records (an Operation version and its Swift-concurrency
/// counterpart), each key and its type stated once; checks read them back with the same key.
extension OutcomeKey where Value == [String] {
    /// The images that arrived, by title (`2 Venice`), in the order they arrived.
    static var arrived: Self { Self("arrived") }
    /// GroupAdd's `outputArray`, each tuple as `(l, r, sum)`, in the order appended.
    static var outputTuples: Self { Self("outputArray") }
}

extension OutcomeKey where Value == Double {
    /// When `cancel()` was called, in real seconds from the run's start.
    static var cancelledAtSeconds: Self { Self("cancelledAtSeconds") }
}
