import ExperimentKit
import ExperimentModel

/// An experiment with one knob of each kind (a count, seconds, a width, a service class) and
/// their typed keys: what reading, overriding and sending parameters is tested with.
package enum KnobsExperiment {
    package static let pairs = ParameterKey<Int>("pairs")
    package static let cancelAt = ParameterKey<Double>("cancel-at")
    package static let width = ParameterKey<QueueWidth>("width")
    package static let qos = ParameterKey<ServiceClass>("qos")
    package static let specs: [ParameterSpec] = [
        .count(pairs, summary: "pairs", default: 5, range: 1...10),
        .seconds(
            cancelAt, summary: "cancel", default: 1.75, origin: .chosen("clear of the race", insteadOf: 2.0),
            range: 0.1...20),
        .width(width, summary: "width", default: .limited(2)),
        .serviceClass(qos, summary: "qos", default: .utility),
    ]

    package static let experiment = Experiment("knobs", source: ArticleSource(file: "f", section: "s")) { _ in }
        .title("knobs")
        .summary("s")
        .expectedOutcome("o")
        .platformDifference("d")
        .parameters(specs)
}
