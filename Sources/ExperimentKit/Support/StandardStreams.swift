import Foundation
import Synchronization

/// Writes to stdout and stderr with plain `write(2)`, so a reader that goes away (`… | head -1`)
/// ends the run quietly instead of trapping in Foundation, and a write that fails for another
/// reason (a full disk, `> /dev/full`) is told apart from it and reported as an error.
package enum StandardStreams {
    /// What became of stdout.
    package enum OutputState: Equatable {
        /// Every write so far went through.
        case open
        /// Its reader went away (EPIPE): the run ends quietly, with 128 + SIGPIPE.
        case closed
        /// A write failed with this error number: the run ends with an error.
        case failed(Int32)
    }

    private static let state = Mutex(OutputState.open)

    package static var outputState: OutputState {
        state.withLock { $0 }
    }

    /// Whether stdout takes no more output, for either reason.
    package static var isOutputEnded: Bool {
        outputState != .open
    }

    package static func write(_ text: String) {
        guard !isOutputEnded else { return }
        if !writeAll(Array(text.utf8), to: STDOUT_FILENO) {
            let code = errno
            state.withLock { $0 = code == EPIPE ? .closed : .failed(code) }
        }
    }

    package static func writeError(_ text: String) {
        _ = writeAll(Array(text.utf8), to: STDERR_FILENO)
    }

    /// Writes every byte, retrying after interrupts; false when the descriptor no longer takes
    /// any, with `errno` saying why.
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
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
