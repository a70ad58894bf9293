import Foundation
import Synchronization

/// Reads the reading end of a pipe on a thread of its own, handing each chunk, with the moment
/// it arrived, to `take`, until the pipe ends or ``stop()`` is called. Once the child that
/// writes it has exited, ``stop()`` reads what is buffered and ends the reading: a process the
/// child started, that escaped its lineage and still holds the pipe, cannot make the runner wait
/// for an end that never comes. Owns the descriptor, closed when the reading ends.
///
/// Once `gathers` says so, the thread no longer waits on the pipe: it reads what piled up there
/// every ``gatheringMilliseconds``, so a write wakes no thread of the runner (a child's timed
/// code writes its events as they happen, and each wake-up would take a core from it for a
/// moment on a 2-core machine, at the busiest moments of its run). A ``stop()`` ends a pause at once.
///
/// `@unchecked Sendable`: `take`, `gathers` and `finished` are called on the reading thread only; the
/// wake-up pipe is made once, before the thread starts, and its writing end is closed under a lock.
final class PipeDrain: @unchecked Sendable {
    private let descriptor: Int32
    private let take: ([UInt8], DispatchTime) -> Void
    private let gathers: () -> Bool
    private let finished: () -> Void
    private let wakeUp: ClosingPipe?
    /// The wake-up pipe's writing end until ``stop()`` closes it.
    private let wakeUpWriting: Mutex<Int32?>
    private let done = DispatchSemaphore(value: 0)
    /// The most that is read after ``stop()``: what a full pipe holds and more, but a bound, so a
    /// writer that escaped keeps no reader busy.
    static let readsAfterTheStop = 64
    /// How long a gathering reader pauses between reads: fifty wake-ups a second, for a pipe
    /// that holds 64 KiB at least (3 MB a second before a writer waits).
    static let gatheringMilliseconds: Int32 = 20

    /// Starts reading `descriptor`; `take` gets each chunk and when it arrived (its arrival is
    /// the moment it was read: once `gathers`, up to ``gatheringMilliseconds`` after its write),
    /// `finished` runs once after the last.
    init(
        _ descriptor: Int32, take: @escaping ([UInt8], DispatchTime) -> Void,
        gathers: @escaping () -> Bool = { false }, finished: @escaping () -> Void = {}
    ) {
        self.descriptor = descriptor
        self.take = take
        self.gathers = gathers
        self.finished = finished
        wakeUp = try? ClosingPipe()
        wakeUpWriting = Mutex(wakeUp?.writing)
        Thread.detachNewThread { [self] in
            read()
            close(descriptor)
            self.finished()
            done.signal()
        }
    }

    private func read() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        func readOnce() -> Int {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { take(Array(buffer[..<count]), .now()) }
            return count
        }
        var pollers = [
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeUp?.reading ?? -1, events: Int16(POLLIN), revents: 0),
        ]
        var gathering = false
        while true {
            if gathering {
                var stopping = [pollers[1]]
                if poll(&stopping, 1, Self.gatheringMilliseconds) > 0 { break }
                var count = 0
                repeat { count = readOnce() } while count > 0
                if count == 0 || (errno != EINTR && errno != EAGAIN) { return }
                continue
            }
            let ready = poll(&pollers, nfds_t(pollers.count), -1)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return }
            if pollers[1].revents != 0 { break }
            let count = readOnce()
            if count == 0 || (count < 0 && errno != EINTR && errno != EAGAIN) { return }
            if gathers() {
                gathering = true
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            }
        }
        // Stopped: what is buffered now, without waiting for more.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        for _ in 0..<Self.readsAfterTheStop {
            guard readOnce() > 0 else { return }
        }
    }

    /// The writer has exited: reads what is buffered, and ends.
    func stop() {
        wakeUpWriting.withLock { writing in
            guard let descriptor = writing else { return }
            var byte: UInt8 = 1
            _ = write(descriptor, &byte, 1)
            close(descriptor)
            writing = nil
        }
    }

    /// The wake-up pipe's reading end stays open until now: a ``stop()`` after the pipe's end
    /// writes to it, and a pipe without a reader would raise SIGPIPE.
    deinit {
        wakeUpWriting.withLock { writing in
            if let descriptor = writing { close(descriptor) }
        }
        if let wakeUp { close(wakeUp.reading) }
    }

    /// Waits until the reading has ended (the pipe's end, or ``stop()``).
    func wait() {
        done.wait()
        done.signal()
    }
}
