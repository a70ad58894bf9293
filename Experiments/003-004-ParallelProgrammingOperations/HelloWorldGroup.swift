import ExperimentKit
import Foundation

/// HelloWorldOperation started by hand (article 003/004, "Practical Example").
let helloWorldGroup = Experiment("hello-world-group", source: HelloWorld.source) { context in
    // Started by hand on this thread, as in the article: it blocks until the group is done.
    let group = HelloWorldOperation()
    group.start()
    context.record("group isFinished after start() returned", .bool(group.isFinished))
}
.title("GroupOperation: \"Hello\" ==> \"World\" as one operation")
.summary(
    "HelloWorldOperation is a GroupOperation (an AsyncOperation owning a private queue) holding two TextOperations, \"World\" depending on \"Hello\" and listed first. It is started with start() on the experiment's own thread, as in the article; it adds both to its queue with waitUntilFinished: true and finishes when they are done. Each text operation sleeps 0.5 s after printing, standing for real work."
)
.claim(
    "Calling addOperations([Operation], waitUntilFinished: true) results in the queue blocking until the added Operations are done. Afterwards the GroupOperation will change its state to Finish.",
    seconds: nil,
    file: "004_75652ba8307bb273.txt"
)
.expectedOutcome(
    "group started, Hello, World, group done: the dependency, not the array's order, puts Hello first, and the group finishes after both."
)
.platformDifference("Two operations one after the other need one thread at a time, which every platform has.")
.checks { measurement, _ in
    let world = measurement.span(HelloWorld.world)
    let groupEnd = measurement.span(HelloWorld.group)?.end ?? -.infinity
    return [
        HelloWorld.printedInOrder(measurement),
        Check(
            "the group finished after World ended, and start() returned a finished group",
            passed: world.map { groupEnd >= $0.end } == true
                && measurement.outcome["group isFinished after start() returned"] == .bool(true)),
    ]
}
