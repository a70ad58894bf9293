import ExperimentKit
import Foundation

/// An observer that prints "done" when HelloWorldOperation finishes (article 003/004, "Operation Observer").
let operationObserverExperiment = Experiment(
    "operation-observer", article: "003_2ee32e0c735e8871.txt",
    section: "创建观察者(Operation Observer) (004: “Operation Observer”)"
) { context in
    let helloWorld = HelloWorldOperation()
    let observer = OperationObserver(operation: helloWorld)
    helloWorld.start()
    context.record("notifications observed", .strings(observer.notifications))
    context.record("isFinished when \"done\" printed", observer.isFinishedWhenDone.map(JSONValue.bool) ?? .null)
}
.title("An OperationObserver without KVO")
.summary(
    "HelloWorldOperation runs as in hello-world-group, watched by an OperationObserver that prints \"done\" when it finishes. The article's observer uses KVO's addObserver(_:forKeyPath:options:context:), which swift-corelibs-foundation does not have, so it cannot compile on Linux; this one registers with the operation, whose AsyncOperation base calls it with each change notification it sends."
)
.claim(
    "The other is to register an OperationObserver. This is a class, which registered on keyPaths via KVO and can observe everything as long as you keep it KVO compliant. In our little framework let’s make it print “done”, as soon as the HelloWorldOperation finishes",
    seconds: nil,
    file: "004_75652ba8307bb273.txt"
)
.expectedOutcome("\"done\" is printed once, right after \"group done\", when isFinished is already true.")
.platformDifference(
    "Linux's Foundation has no KVO observers, so the observer hooks into the operation's own change notifications; the timing is the same everywhere."
)
.checks { measurement, _ in
    [
        HelloWorld.printedInOrder(measurement, expected: HelloWorld.printed + ["done"]),
        Check(
            "the observer printed \"done\" when isFinished was already true",
            passed: measurement.outcome["isFinished when \"done\" printed"] == .bool(true)),
    ]
}
