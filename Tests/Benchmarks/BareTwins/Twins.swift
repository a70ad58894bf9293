import Foundation

/// The scale the shape runs at: the second argument (`main.swift` refuses a run without one).
let scale = CommandLine.arguments.count > 2 ? Double(CommandLine.arguments[2]) ?? 1 : 1

/// The article's `sleep(n)`, scaled (an `Int`, so `sleep(2)` means this one, not the C library's).
func sleep(_ articleSeconds: Int) {
    Thread.sleep(forTimeInterval: Double(articleSeconds) * scale)
}

/// Sleeps until `articleSeconds` (scaled) after `start`.
func sleep(untilArticleSeconds articleSeconds: Double, from start: ContinuousClock.Instant) {
    let deadline = start + .seconds(articleSeconds * scale)
    let left = deadline - .now
    if left > .zero { Thread.sleep(forTimeInterval: left.inSeconds) }
}

extension Duration {
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// The cancellation playground's ArraySumOperation: one `slowAdd` (a sleep of 1) per pair,
/// looking at `isCancelled` before each.
final class ArraySumOperation: Operation, @unchecked Sendable {
    // `@unchecked Sendable`: `inputArray` is a constant and `outputArray` is read only after
    // the queue has finished the operation.
    let inputArray: [(Int, Int)]
    var outputArray: [Int] = []

    init(input: [(Int, Int)]) {
        inputArray = input
        super.init()
    }

    override func main() {
        for pair in inputArray {
            if isCancelled { return }
            sleep(1)
            outputArray.append(pair.0 + pair.1)
        }
    }
}
