import ExperimentKit
import Foundation

// swift-format-ignore
/// Two operations that depend on each other never start (articles 000 and 003/004).
let dependencyCycle = Experiment(
    "dependency-cycle", article: "000_d66eefb2b922d5e0.txt",
    section: "Dependencies ( dependencies): closed cycles lead to a deadlock; 003 “依赖”, 004 “Dependencies”"
) { context in
    let a = BlockOperation { print(Cycle.a); sleep(0.5) }
    let b = BlockOperation { print(Cycle.b); sleep(0.5) }
    let c = BlockOperation { print(Cycle.c); sleep(0.5) }
    (a.name, b.name, c.name) = (Cycle.a, Cycle.b, Cycle.c)
    a.addDependency(b)
    b.addDependency(a)
    // Everything worth knowing is recorded before the wait that never returns.
    context.record("cycle found before enqueueing", DependencyCycle.names(in: [a, b, c]).map(JSONValue.strings) ?? .null)
    let queue = OperationQueue()
    queue.addOperations([a, b, c], waitUntilFinished: false)
    c.waitUntilFinished()
    context.record("A and B when C has finished", .strings([a, b].map { "\($0.name ?? ""): \(Semantics.describe($0))" }))
    print("waitUntilAllOperationsAreFinished()…")
    queue.waitUntilAllOperationsAreFinished()
    print("…returned: A and B ran after all")
}
.title("A depends on B, B depends on A: a deadlock, found before it happens")
.summary("Operations A and B each print and sleep 0.5 s, and each depends on the other; C, with no dependency, shows that the queue itself works. A cycle detector of this project's own walks the operations' dependencies before anything is enqueued and reports the cycle it finds. Then all three are added and the experiment waits for the queue: C runs, A and B never become ready, and the wait never returns; the runner's watchdog stops it, and the hang is the demonstration.")
.claim(
    "The appearance of closed cycles in the “dependencies” column leads to the appearance of a deadlock and there is no universal way to eliminate them, except by identifying them by visual analysis.",
    seconds: nil
)
.corrections(
    ArticleCorrection(
        quote: "…there is no universal way to eliminate them, except by identifying them by visual analysis.",
        here: "a walk of the operations' dependencies, this project's own detector (Foundation has none), identified the cycle A → B → A before anything was enqueued (this run's checks). It finds every cycle among the operations it is given, but not one through an operation it is not shown, and it does not eliminate a cycle: breaking one is still the programmer's decision."
    )
)
.expectedOutcome("The detector finds A → B → A before enqueueing; C runs; A and B stay pending forever, and waiting for the queue hangs.")
.platformDifference("A cycle of dependencies deadlocks on every platform.")
.ending(.hangs)
.checks { measurement, _ in
    [
        Check("the detector found the cycle A → B → A before anything was enqueued, as the correction says",
              passed: measurement.outcome["cycle found before enqueueing"]?.stringArray == [Cycle.a, Cycle.b, Cycle.a]),
        Check("when C had finished, A and B were still pending (not ready, never started)",
              passed: measurement.outcome["A and B when C has finished"]?.stringArray == ["\(Cycle.a): pending", "\(Cycle.b): pending"]),
    ]
}

/// The names of the dependency-cycle experiment's operations, for its checks.
enum Cycle {
    static let a = "A"
    static let b = "B"
    static let c = "C"
}
