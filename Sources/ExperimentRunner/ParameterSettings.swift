import ExperimentKit
import ExperimentModel

/// The `--set` values of a run, parsed and validated once for its experiments: the typed
/// `Parameters` each one runs with. A key no experiment declares, or a value its knob does not
/// accept, is a usage error here, before anything runs; nothing parses the values again.
package struct ParameterSettings: Sendable {
    private var parameters: [String: Parameters] = [:]

    /// No `--set` values: every experiment runs with its defaults.
    package static let none = ParameterSettings()

    private init() {}

    /// `settings` (`key` → the value as typed) for `experiments`: each key must be one some of
    /// them declares, and its value valid for each that declares it.
    package init(_ settings: [String: String], for experiments: [Experiment]) throws(UsageError) {
        let declared = Set(experiments.flatMap { $0.parameters.map(\.key) })
        for key in settings.keys.sorted() where !declared.contains(key) {
            let valid =
                declared.isEmpty
                ? "the selected experiments take none" : "valid keys: " + declared.sorted().joined(separator: ", ")
            throw UsageError("No selected experiment has a parameter \(Format.echoed(key)) (\(valid)).")
        }
        for experiment in experiments {
            parameters[experiment.name] = try experiment.parameters(overriding: settings)
        }
    }

    /// The values `experiment` runs with: its defaults, with the `--set` values it declares. An
    /// experiment these settings were not made for was set nothing, and runs with its defaults.
    package func parameters(of experiment: Experiment) -> Parameters {
        parameters[experiment.name] ?? experiment.defaultParameters
    }
}

extension Experiment {
    /// The parameters with `overrides` applied to the keys this experiment declares, each parsed
    /// and validated here; a value the knob does not accept is a usage error.
    package func parameters(overriding overrides: [String: String]) throws(UsageError) -> Parameters {
        var valid: [String: Parameters.Value] = [:]
        for spec in parameters {
            guard let text = overrides[spec.key] else { continue }
            guard let value = spec.value(parsing: text) else {
                throw UsageError("\(Format.echoed(text)) is not a valid value for '\(spec.key)': \(spec.accepted).")
            }
            valid[spec.key] = value
        }
        return Parameters(parameters, overrides: valid)
    }
}
