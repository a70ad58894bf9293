import ExperimentKit
import Foundation

/// How busy the machine was as the run began: the kernel's load averages, the number of tasks
/// running or waiting for a CPU, averaged over 1, 5 and 15 minutes (`/proc/loadavg`).
///
/// Timer jitter alone does not show a busy machine: a process that keeps a core busy barely
/// delays a 1 ms wake-up, yet it slows every filter and blur. A 1-minute load near the CPU
/// count says the experiments shared their CPUs.
package struct LoadAverage: Sendable, Equatable {
    package var oneMinute: Double
    package var fiveMinutes: Double
    package var fifteenMinutes: Double

    /// This machine's, or nil where there is no `/proc/loadavg` (not Linux) or it reads oddly.
    package static func current(path: String = "/proc/loadavg") -> LoadAverage? {
        (try? String(contentsOfFile: path, encoding: .utf8)).flatMap(parse)
    }

    /// The first three fields of `/proc/loadavg`, e.g. `2.77 1.57 0.71 4/111 11329`.
    package static func parse(_ text: String) -> LoadAverage? {
        let fields = text.split(separator: " ").prefix(3).compactMap { Double($0) }
        guard fields.count == 3, fields.allSatisfy({ $0.isFinite && $0 >= 0 }) else { return nil }
        return LoadAverage(oneMinute: fields[0], fiveMinutes: fields[1], fifteenMinutes: fields[2])
    }

    /// `load average 2.77, 1.57, 0.71 (1, 5, 15 min) on 2 CPUs`.
    package func description(cpus: Int) -> String {
        let figures = [oneMinute, fiveMinutes, fifteenMinutes].map { String(format: "%.2f", $0) }.joined(
            separator: ", ")
        return "load average \(figures) (1, 5, 15 min) on \(Format.count(cpus, "CPU"))"
    }
}
