import Foundation

/// Finds a dependency cycle before anything is enqueued.
///
/// Article 000: "The appearance of closed cycles in the “dependencies” column leads to the
/// appearance of a deadlock and there is no universal way to eliminate them, except by
/// identifying them by visual analysis." A depth-first walk of `dependencies` identifies them
/// without looking: an operation met again while its own dependencies are still being walked
/// closes a cycle. Operations in a cycle never become ready, and a queue holding them never
/// empties, so the check belongs before `addOperations`.
enum DependencyCycle {
    /// The names along the first cycle found, from an operation through what it waits for back
    /// to itself (`["A", "B", "A"]`: A waits for B, which waits for A); nil when there is none.
    static func names(in operations: [Foundation.Operation]) -> [String]? {
        let byIdentity = Dictionary(
            operations.map { (ObjectIdentifier($0), $0) }, uniquingKeysWith: { first, _ in first })
        let cycle = find(from: operations.map(ObjectIdentifier.init)) { node in
            byIdentity[node]?.dependencies.map(ObjectIdentifier.init) ?? []
        }
        return cycle?.map { byIdentity[$0]?.name ?? "unnamed" }
    }

    /// The first cycle reachable from `roots` in the graph `dependencies` describes, as the
    /// nodes along it with the first repeated at the end; nil when the graph has none.
    ///
    /// Generic so it can be tested on plain graphs, including shapes a real `Operation` cannot
    /// take (corelibs' `addDependency(self)` locks the operation's lock twice).
    static func find<Node: Hashable>(from roots: [Node], dependencies: (Node) -> [Node]) -> [Node]? {
        var finished: Set<Node> = []
        var path: [Node] = []

        func walk(_ node: Node) -> [Node]? {
            if let start = path.firstIndex(of: node) {
                return Array(path[start...]) + [node]
            }
            guard !finished.contains(node) else { return nil }
            path.append(node)
            for next in dependencies(node) {
                if let cycle = walk(next) { return cycle }
            }
            path.removeLast()
            finished.insert(node)
            return nil
        }

        for root in roots {
            if let cycle = walk(root) { return cycle }
        }
        return nil
    }
}
