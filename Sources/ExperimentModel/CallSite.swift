/// Where in an experiment's code a call was made, as the call stack recorded it.
///
/// The model keeps the stack as data beside what it plans (``PlannedOperation/calledFrom``);
/// capturing one and reading its line belong to the lab, which extends this type.
public enum CallSite {
    /// A call stack captured where something was recorded: the executable's file, and the
    /// link-time addresses of its frames in it, innermost first.
    public struct Stack: Sendable, Equatable, Codable {
        package let image: String
        package let addresses: [UInt64]

        package init(image: String, addresses: [UInt64]) {
            self.image = image
            self.addresses = addresses
        }
    }

    /// Something recorded with the stack that made it: a printed line, a sleep, a planned operation.
    public protocol Recorded {
        var calledFrom: Stack? { get }
    }
}
