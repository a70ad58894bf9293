import ExperimentKit
import Foundation

/// Reads lines from a pipe as they come, waiting for each at most until a deadline.
struct LineReader {
    private let descriptor: Int32
    private var pending: [UInt8] = []
    /// How much of `pending` holds no newline: each byte is looked at once.
    private var scanned = 0
    private var ended = false
    /// The last ``next(before:)`` gave up at its deadline.
    private(set) var timedOut = false

    init(_ descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next line, without its newline; nil at the end of input or at `deadline`.
    mutating func next(before deadline: DispatchTime = .distantFuture) -> [UInt8]? {
        while true {
            if let newline = pending[scanned...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(pending[..<newline])
                pending.removeSubrange(...newline)
                scanned = 0
                return line
            }
            scanned = pending.count
            guard !ended else { return nil }
            let now = DispatchTime.now()
            guard now < deadline else {
                timedOut = true
                return nil
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(Double(Int32.max), (deadline.seconds(since: now) * 1000).rounded(.up)))
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 {
                ended = true
            } else {
                pending += chunk[..<count]
            }
        }
    }
}
