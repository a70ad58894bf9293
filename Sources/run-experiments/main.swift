import ExperimentCLI
import Experiments

RunExperimentsCommand.main(registry: allExperiments)
