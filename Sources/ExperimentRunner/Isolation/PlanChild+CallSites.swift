import ExperimentKit
import ExperimentModel

extension Workload {
    /// The plan as the plan child sends it: each operation's call stack without the runner's
    /// frames that rehearsed it (`runnersFrames`, a stack captured where the rehearsal is
    /// called), or without any stack when the runner shows no line. Only a stack's line is ever
    /// read, the innermost frame in an experiment's file, and the frames cut lie outside it.
    func sent(keepingCallSites: Bool, cutting runnersFrames: CallSite.Stack?) -> Workload {
        var sent = self
        for index in sent.operations.indices {
            guard keepingCallSites else {
                sent.operations[index].calledFrom = nil
                continue
            }
            if let runnersFrames, let stack = sent.operations[index].calledFrom {
                sent.operations[index].calledFrom = stack.cuttingOuterFrames(of: runnersFrames)
            }
        }
        return sent
    }
}

extension CallSite.Stack {
    /// The stack without its outermost frames that `outer` also holds: the frames of the code
    /// that called both, whatever the depth at which the capture stopped. The frame where that
    /// code called this stack's way in is not among them (`outer`'s call there is another), so
    /// it is kept, and with it every frame inside.
    func cuttingOuterFrames(of outer: CallSite.Stack) -> CallSite.Stack {
        guard image == outer.image else { return self }
        let shared = Set(outer.addresses)
        let kept = addresses.reversed().drop { shared.contains($0) }.count
        guard kept > 0, kept < addresses.count else { return self }
        return CallSite.Stack(image: image, addresses: Array(addresses.prefix(kept)))
    }
}
