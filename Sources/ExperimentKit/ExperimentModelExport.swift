/// An experiment's file imports one module: the model's types (`Workload`, `ServiceClass`,
/// `Prediction`, `Parameters`) come with this one.
@_exported import ExperimentModel
