import ExperimentKit

/// Which threads ran some operations, reported as an observation and never checked: under load
/// a pool hands the same work to other threads (see Foundation and Dispatch on Linux, in ExperimentModel.docc), so only the structure
/// (order, overlap) is asserted.
enum ThreadObservation {
    /// "one thread (t1)" or "2 threads (t1, t2)", for the rows recorded under `labels`.
    static func describe(_ labels: [String], in measurement: MeasuredRun?) -> String {
        let threads = labels.compactMap { measurement?.span($0)?.thread }
        let distinct = threads.reduce(into: [Int]()) { if !$0.contains($1) { $0.append($1) } }
        let names = distinct.map { "t\($0)" }.joined(separator: ", ")
        return distinct.count == 1 ? "one thread (\(names))" : "\(distinct.count) threads (\(names))"
    }
}
