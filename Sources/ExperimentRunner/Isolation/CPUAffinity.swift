import Foundation

/// Runs a child on fewer CPUs (`--cpus N`): it is started through `taskset`, so Dispatch sizes
/// its pool from the CPUs it is pinned to. (The affinity calls themselves are not visible to
/// Swift on Linux, so the standard `taskset` of util-linux does the pinning.)
enum CPUAffinity {
    static let taskset = "/usr/bin/taskset"

    /// The CPUs this process may run on, from `/proc/self/status` (e.g. `0-3,6`).
    static func allowed() -> [Int] {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") })
        else { return [] }
        return line.dropFirst("Cpus_allowed_list:".count).split(separator: ",").flatMap { part -> [Int] in
            let bounds = part.trimmingCharacters(in: .whitespaces).split(separator: "-").compactMap { Int($0) }
            guard let first = bounds.first else { return [] }
            return Array(first...(bounds.last ?? first))
        }
    }

    /// The executable and arguments that start `executable` pinned to the first `count` allowed
    /// CPUs; nil when this machine does not have that many, or has no `taskset`.
    static func pinned(_ executable: URL, arguments: [String], to count: Int) -> (URL, [String])? {
        let cpus = allowed().prefix(count)
        guard cpus.count == count, FileManager.default.isExecutableFile(atPath: taskset) else { return nil }
        return (
            URL(fileURLWithPath: taskset),
            ["-c", cpus.map(String.init).joined(separator: ","), executable.path] + arguments
        )
    }
}
