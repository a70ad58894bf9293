import ExperimentKit
import Foundation

/// The article's TextOperation (003/004): an asynchronous operation that prints its text.
///
/// Here it also sleeps `workSeconds` after printing, standing for real work, so that a timeline
/// shows who waits for whom; that is the one thing it declares to the model.
///
/// `@unchecked Sendable` (required of every Operation subclass): its one stored property is a constant.
final class TextOperation: AsyncOperation, ModelledOperation, @unchecked Sendable {
    /// The stand-in for real work, in article seconds.
    static let workSeconds = 0.5

    let text: String

    init(text: String) {
        self.text = text
        super.init()
        // Its row and its place in the plan go by its name.
        name = text
    }

    var modelledWork: ModelledWork {
        ModelledWork(articleSeconds: Self.workSeconds)
    }

    override func main() {
        work {
            print(text)
            sleep(Self.workSeconds)
        }
        finish()
    }
}
