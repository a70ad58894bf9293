import Foundation

/// The `==>` operator of article 003/004 ("Dependencies"): `a ==> b ==> c` runs a, then b, then c.
///
/// Its own precedence group, associative to the left, so a chain reads as it runs: the first
/// `==>` returns its right-hand side, which becomes the left-hand side of the next.
precedencegroup OperationChaining {
    associativity: left
}

infix operator ==> : OperationChaining

/// Makes `rhs` depend on `lhs` and returns `rhs`, so chains can go on.
///
/// The article declares both sides as one type `T`; here they may differ, so a chain can mix
/// kinds of operation (a `BlockOperation` adapter between two subclasses, say).
@discardableResult
func ==> <Later: Foundation.Operation>(lhs: Foundation.Operation, rhs: Later) -> Later {
    rhs.addDependency(lhs)
    return rhs
}
