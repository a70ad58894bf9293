import Foundation

/// Blocks the calling thread for `seconds` of real time: Foundation's `Thread.sleep`, named apart
/// from the Experiments module's instrumented one, which a `@testable import` makes visible too.
public func pause(_ seconds: TimeInterval) {
    Thread.sleep(forTimeInterval: seconds)
}
