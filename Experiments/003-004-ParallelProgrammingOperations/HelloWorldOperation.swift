import ExperimentKit
import Foundation

/// The article's HelloWorldOperation (003/004): a GroupOperation of two TextOperations, "World"
/// depending on "Hello" and listed first.
///
/// `@unchecked Sendable` (required of every Operation subclass): it adds no stored property.
final class HelloWorldOperation: GroupOperation, @unchecked Sendable {
    override init() {
        super.init()

        let op = TextOperation(text: "Hello")
        let op2 = TextOperation(text: "World")

        op2.addDependency(op)

        operations = [op2, op]
    }
}

/// The labels shared by the experiments that run HelloWorldOperation.
enum HelloWorld {
    static let source = ArticleSource(
        file: "003_2ee32e0c735e8871.txt",
        section: "示例: AsyncOperation, TextOperation, GroupOperation, HelloWorldOperation (004: “Practical Example”)")
    /// The group's row, named after its class.
    static let group = "HelloWorldOperation"
    static let hello = "Hello"
    static let world = "World"
    /// What the group and its operations print, in order.
    static let printed = ["group started", hello, world, "group done"]

    /// The lines printed, in order, are the article's.
    static func printedInOrder(_ measurement: MeasuredRun, expected: [String] = printed) -> Check {
        Check(
            "printed \(expected.joined(separator: ", ")), in that order",
            passed: measurement.output.map(\.text) == expected)
    }
}
