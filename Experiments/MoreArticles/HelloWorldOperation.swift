import ExperimentKit
import Foundation

/// The article's HelloWorldOperation (003/004): a GroupOperation of two TextOperations, "World"
/// depending on "Hello" and listed first, as the article's `operations = [op2, op]` does.
///
/// `@unchecked Sendable` (required of every Operation subclass): it adds no stored property.
final class HelloWorldOperation: GroupOperation, @unchecked Sendable {
    /// Builds the text operations the workload plans on its one queue, with their dependencies.
    init(_ workload: Workload, context: RunContext) {
        let texts = workload.operations.map { TextOperation(text: $0.label, articleSeconds: $0.articleSeconds, context: context) }
        workload.linkDependencies(of: texts)
        super.init(label: HelloWorld.group, operations: texts, context: context)
    }
}

/// The plan and labels shared by the experiments that run HelloWorldOperation.
enum HelloWorld {
    static let source = ArticleSource(file: "003_2ee32e0c735e8871.txt", section: "Practical example: AsyncOperation, TextOperation, GroupOperation, HelloWorldOperation (004: the same, in English)")
    static let group = "HelloWorldOperation"
    static let hello = "Hello"
    static let world = "World"
    /// Each text operation's stand-in for real work, in article seconds.
    static let textSeconds = 0.5
    /// What the group and its operations print, in order.
    static let printed = ["group started", hello, world, "group done"]

    /// The group's private queue with "World" (depending on "Hello") added before "Hello". The
    /// group itself is started with `start()` on the experiment's own thread, as the article
    /// does, and blocks it while waiting: its row is detail, not a planned operation, and it
    /// holds no worker of the pool the text operations run on.
    static func workload() -> Workload {
        var workload = Workload()
        let queue = workload.addQueue(QueueSpec(name: "\(group).queue", maxConcurrentOperationCount: nil))
        let worldIndex = workload.add(PlannedOperation(label: world, articleSeconds: textSeconds, executor: .queue(queue)))
        let helloIndex = workload.add(PlannedOperation(label: hello, articleSeconds: textSeconds, executor: .queue(queue)))
        workload.operations[worldIndex].dependencies = [helloIndex]
        return workload
    }

    /// The lines printed, in order, are the article's.
    static func printedInOrder(_ measurement: MeasuredRun, expected: [String] = printed) -> Check {
        Check("printed \(expected.joined(separator: ", ")), in that order", passed: measurement.output.map(\.text) == expected)
    }
}
