/// The platform model: simulates how OperationQueue and Dispatch schedule a workload.
///
/// What it models, from swift-corelibs-foundation and -libdispatch (see <doc:LinuxFoundationAndDispatch>):
/// - operations are added one at a time in workload order (as `addOperation` calls, and blocks
///   sent to a global queue with them, in the order the code makes them), and the
///   queue decides after each add which to start (so on a narrow queue the first ones take the
///   slots before later, higher-priority ones are even added); adding takes microseconds, about
///   what a worker needs to wake, so workers may take the started items only after the last
///   add (as on an idle machine), after each add, or from any add in between on (as when a core
///   is kept busy): all are followed;
/// - a queue starts ready operations while fewer than `maxConcurrentOperationCount` run,
///   highest priority first, in enqueue order within a priority; an operation's priority is
///   its `queuePriority` when set (on a queue of any width), else one derived from its QoS, or
///   normal on a queue of width 1;
/// - a started operation becomes a work item on the pool of its service class;
/// - `linux`: a pool creates workers on demand up to the CPU count; beyond that only the
///   monitor adds one, once a second, and only while work waits and every worker is blocked
///   (the experiments' work blocks in `sleep`, so a busy worker is a blocked one);
///   an idle worker exits after 5 s;
/// - `apple`: a pool has a worker for every waiting item, up to 64;
/// - a `BlockOperation` started with `start()` runs its blocks one after another on the
///   calling thread under `linux`, and concurrently under `apple`; a queued one, on the worker
///   that runs it under `linux`, and on workers of its pool under `apple`;
/// - work handed to a global queue occupies a worker of that pool; a timer holds none;
/// - real CPU work (an image filter) lasts what it was measured to cost here, unscaled; it is
///   milliseconds, short enough that the monitor's rule for runnable workers never comes into play;
/// - a cancelled operation that has not started becomes ready at once and, when started,
///   finishes without running its work; a running one stops only at a step that checks; an
///   operation may cancel others as it starts (``PlannedOperation/cancelsWhenStarting``);
/// - a queue's cancel flags its operations one at a time, so an end that meets it may land
///   inside that loop and start an operation not yet flagged;
/// - an operation that never finishes keeps its queue slot and its dependents waiting forever;
///   under `linux`, so does a dependency removed before it finished (corelibs keeps its count);
/// - a `concurrentPerform` takes as many threads as iterations, one per CPU at most: the
///   calling thread and continuations on the default pool, which wait for a worker there as a
///   block does; each thread claims the next iteration as it frees, until none is left;
/// - a suspended queue starts nothing new until it is resumed; what runs goes on;
/// - the experiment's own thread adds what it adds after a sleep at that instant, and a sleep
///   it makes after a wait begins when what it waited for has ended.
public enum Scheduler {
    /// A monitor tick and a completion closer than this (real seconds) may happen in either
    /// order on a real machine: the model follows both. It is the monitor's measured scatter
    /// around its nominal phase (a few ms) plus scheduling delays on a loaded 2-core machine.
    public static let tieWindow = 0.05
    /// A cancel and a step's end closer than this (real seconds) may happen in either order:
    /// both are wake-ups from timed sleeps, late by a few milliseconds at most on a loaded
    /// 2-core machine.
    static let cancelTieWindow = 0.01
    /// The most timelines the model follows before it keeps to the nominal order.
    public static let maximumBranches = 256

    /// Predicts the workload's timelines at `timeScale` real seconds per article second.
    public static func predict(_ workload: Workload, profile: PlatformProfile, timeScale: Double) -> Prediction {
        predict(workload, profile: profile, timeScale: timeScale, mergingEqualStates: true)
    }

    /// The prediction, with branches that reach one state explored once (`mergingEqualStates`)
    /// or each on its own (the plain search, kept so tests can show both give the same branches).
    static func predict(_ workload: Workload, profile: PlatformProfile, timeScale: Double, mergingEqualStates: Bool)
        -> Prediction
    {
        searching(workload, profile: profile, timeScale: timeScale, mergingEqualStates: mergingEqualStates).prediction
    }
}
