import Foundation
import Synchronization

/// Ends a run cleanly on SIGINT, SIGTERM or SIGHUP (a closed terminal, or a session ending): the
/// child running at that moment is killed with its lineage, whatever its code started (and
/// the next one, if it was started to wait its turn), and the runner stops after it, prints the summary of
/// what finished, writes the report if one was asked for, and exits 128 + the signal.
package final class Interruption: Sendable {
    /// The one instance the runner and its children's launcher share.
    package static let shared = Interruption()

    private struct State {
        var signal: Int32?
        /// The running child and, at most, the one started to wait for its turn.
        var children: [pid_t: SpawnedProcess] = [:]
    }

    private let state = Mutex(State())
    /// Kept alive for the process's life. Written once, by `install()` on the main thread before
    /// any run starts, and never read: that is what makes the unchecked access safe.
    nonisolated(unsafe) private var sources: [DispatchSourceSignal] = []

    /// The signals that end a run cleanly.
    static let handledSignals = [SIGINT, SIGTERM, SIGHUP]

    /// Routes the handled signals here instead of ending the process at once.
    package func install() {
        let queue = DispatchQueue(label: "run-experiments.signals")
        let installed = Self.handledSignals.map { number in
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in received(number) }
            source.resume()
            return source
        }
        sources = installed
    }

    private func received(_ number: Int32) {
        let children = state.withLock { state -> [SpawnedProcess] in
            state.signal = state.signal ?? number
            return Array(state.children.values)
        }
        for child in children { child.endLineage() }
    }

    /// The signal that interrupted the run, if one did.
    package var signal: Int32? {
        state.withLock { $0.signal }
    }

    /// Records a started child, so an interrupt can stop it; false if the run was already
    /// interrupted (the caller should then kill it).
    func childStarted(_ child: SpawnedProcess) -> Bool {
        state.withLock { state in
            state.children[child.pid] = child
            return state.signal == nil
        }
    }

    /// Forgets a child once it has been reaped (its pid may be reused).
    func childEnded(_ child: SpawnedProcess) {
        state.withLock { _ = $0.children.removeValue(forKey: child.pid) }
    }
}
