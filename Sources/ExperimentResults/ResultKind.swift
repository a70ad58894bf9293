import ExperimentKit
import ExperimentModel

/// What a result is, for a reader: a timing held to one prediction, a race between outcomes the
/// model allows, or a demonstration that ends in a hang or a trap. Every format shows a result
/// by its kind, so a race or a demonstration never reads as a missed prediction (no signed Δ).
package enum ResultKind: Sendable, Equatable {
    /// Timed against one outcome: measured beside the prediction, with a signed Δ.
    case timed
    /// A benchmark the model does not time.
    case untimed
    /// The model derives several outcomes and the verdict accepts any of them.
    case race(RaceOutcome)
    /// A declared hang: the runner's watchdog stops the child.
    case hang
    /// A declared trap: the child ends in it.
    case trap

    /// `timed`, `untimed`, `race`, `hang` or `trap`, as the JSON output names it.
    package var name: String {
        switch self {
        case .timed: return "timed"
        case .untimed: return "untimed"
        case .race: return "race"
        case .hang: return "hang"
        case .trap: return "trap"
        }
    }
}

/// The outcomes a race allows and the one a run produced, each named as the experiment reports
/// it (`[3, 7]`, `2 tuples`).
package struct RaceOutcome: Sendable, Equatable {
    /// Every outcome the model allows, fewest completed steps first.
    package var possible: [String]
    /// What this run produced; nil when nothing ran or the experiment does not name it.
    package var happened: String?

    package init(possible: [String], happened: String?) {
        self.possible = possible
        self.happened = happened
    }

    /// `[3, 7] or [3, 7, 11]`.
    package var possibleText: String {
        possible.joined(separator: " or ")
    }

    /// The outcomes `prediction` allows, named by `naming` (or, without one, by the operations
    /// whose fate differs between them), each once.
    package static func outcomes(in prediction: Prediction, naming: OutcomeNaming?) -> [String] {
        if let declared = naming?.declared { return declared }
        let branches = prediction.outcomeBranches
        let names =
            naming.map { naming in branches.map { naming.predicted($0, prediction.workload) } }
            ?? OutcomeNaming.operationsThatDiffer(branches, prediction.workload)
        var seen: Set<String> = []
        return names.filter { seen.insert($0).inserted }
    }

    /// The outcomes `prediction` allows; nil when it allows only one, so the result is no race.
    package static func possible(in prediction: Prediction, naming: OutcomeNaming?) -> [String]? {
        let names = outcomes(in: prediction, naming: naming)
        return names.count > 1 ? names : nil
    }
}

extension Prediction {
    /// One branch per distinct outcome (which operations' work ran, how many steps each
    /// completed), fewest completed steps first: more than one makes the experiment a race.
    package var outcomeBranches: [PredictedTimeline] {
        var seen: Set<[Int]> = []
        let distinct = branches.filter { branch in
            // -1 marks work that never ran, so a cancelled start differs from a run of 0 steps.
            seen.insert(branch.spans.map { span in span.map { $0.ranWork ? $0.stepsCompleted : -1 } ?? -1 }).inserted
        }
        func completed(_ branch: PredictedTimeline) -> Int {
            branch.spans.reduce(0) { $0 + (($1?.ranWork ?? false) ? 1 + $1!.stepsCompleted : 0) }
        }
        return distinct.enumerated().sorted { (completed($0.element), $0.offset) < (completed($1.element), $1.offset) }
            .map(\.element)
    }
}

extension OutcomeNaming {
    /// Without a naming of its own, each branch by the operations the branches disagree on,
    /// naming those whose work ran (`summing loop 2 of 5 steps`, `C ran`, `D stopped by the
    /// cancel`), or, when none of them did, that they were cancelled before they ran: the
    /// alternatives tell the rest, and a race of many operations stays one short line.
    static func operationsThatDiffer(_ branches: [PredictedTimeline], _ workload: Workload) -> [String] {
        let differing = DifferingOperations(branches, workload)
        return branches.map { branch in
            differing.name(differing.indices.compactMap { differing.fate(branch.spans[$0], $0) })
        }
    }

    /// What a run produced, named as ``operationsThatDiffer(_:_:)`` names the branches: which of
    /// the operations they disagree on did their work (a measured span is work that ran). Nil
    /// when the branches tell apart steps or a stop, which a span does not show.
    static func operationsThatDiffer(measured: MeasuredRun, _ branches: [PredictedTimeline], _ workload: Workload)
        -> String?
    {
        let differing = DifferingOperations(branches, workload)
        let ranOrNot = differing.indices.allSatisfy { index in
            branches.allSatisfy {
                [nil, "\(workload.operations[index].label) ran"].contains(differing.fate($0.spans[index], index))
            }
        }
        guard ranOrNot else { return nil }
        let labels = differing.indices.map { workload.operations[$0].label }
        return differing.name(labels.filter { measured.span($0) != nil }.map { "\($0) ran" })
    }
}

/// The operations whose fate differs between a race's branches.
private struct DifferingOperations {
    let workload: Workload
    let indices: [Int]

    init(_ branches: [PredictedTimeline], _ workload: Workload) {
        self.workload = workload
        indices = workload.operations.indices.filter { index in
            Set(branches.map { Self.fate($0.spans[index], workload.operations[index]) }).count > 1
        }
    }

    func fate(_ span: PredictedSpan?, _ index: Int) -> String? {
        Self.fate(span, workload.operations[index])
    }

    /// `C ran`, `D stopped by the cancel`, `summing loop 2 of 5 steps`; nil when its work never ran.
    static func fate(_ span: PredictedSpan?, _ planned: PlannedOperation) -> String? {
        guard let span, span.ranWork else { return nil }
        if planned.steps > 1 { return "\(planned.label) \(span.stepsCompleted) of \(planned.steps) steps" }
        return span.stepsCompleted == 0 ? "\(planned.label) stopped by the cancel" : "\(planned.label) ran"
    }

    /// The fates of the operations whose work ran, or that none did.
    func name(_ worked: [String]) -> String {
        guard worked.isEmpty else { return worked.joined(separator: ", ") }
        let labels = indices.map { workload.operations[$0].label }
        return labels.joined(separator: ", ") + " cancelled before \(labels.count == 1 ? "it" : "they") ran"
    }
}
