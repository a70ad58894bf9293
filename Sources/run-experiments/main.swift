import ExperimentKit
import Experiments

RunExperimentsCommand.main(registry: allExperiments)
