import ExperimentCLI
import Experiments

// The command's entry, in the learner's module rather than one importing it: a save of an
// experiment here then compiles that file and the list, not this one too (see Package.swift).
// Not an experiment's code: its frames never name a line (`SourceLine`).
RunExperimentsCommand.main(registry: articleExperiments + playgroundExperiments)
