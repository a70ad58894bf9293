import Foundation
import Synchronization

/// Writes to stdout and stderr with plain `write(2)`, so a reader that goes away (`… | head -1`)
/// ends the run quietly instead of trapping in Foundation.
enum StandardStreams {
    private static let outputClosed = Mutex(false)

    /// Whether stdout's reader has gone away.
    static var isOutputClosed: Bool {
        outputClosed.withLock { $0 }
    }

    static func write(_ text: String) {
        guard !isOutputClosed else { return }
        if !writeAll(Array(text.utf8), to: STDOUT_FILENO) {
            outputClosed.withLock { $0 = true }
        }
    }

    static func writeError(_ text: String) {
        _ = writeAll(Array(text.utf8), to: STDERR_FILENO)
    }

    /// Writes every byte, retrying after interrupts; false when the descriptor no longer takes any.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }
}
