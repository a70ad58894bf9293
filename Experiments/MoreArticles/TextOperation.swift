import ExperimentKit
import Foundation

/// The article's TextOperation (003/004): an asynchronous operation that prints its text.
///
/// Here it also blocks its thread for `articleSeconds` after printing, standing for real work,
/// so that a timeline shows who waits for whom.
///
/// `@unchecked Sendable` (required of every Operation subclass): its stored properties are constants.
final class TextOperation: AsyncOperation, @unchecked Sendable {
    let text: String
    let articleSeconds: Double
    private let context: RunContext

    init(text: String, articleSeconds: Double, context: RunContext) {
        self.text = text
        self.articleSeconds = articleSeconds
        self.context = context
        super.init()
        name = text
    }

    override func main() {
        context.timeline.operation(text) {
            context.print(text)
            context.sleep(articleSeconds: articleSeconds)
            return false
        }
        finish()
    }
}
