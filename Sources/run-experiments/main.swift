import ExperimentCLI
import Experiments
import Playground

RunExperimentsCommand.main(registry: articleExperiments + playgroundExperiments)
