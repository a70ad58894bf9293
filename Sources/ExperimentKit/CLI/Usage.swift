/// The help text, in swift-argument-parser's layout.
public enum Usage {
    public static let version = "0.1.0"

    public static let line = "run-experiments <all | NAME ...> [--filter TEXT ...] [--time-scale X] [--profile linux|apple] [--format text|json|markdown] [--set KEY=VALUE ...] [--cpus N] [--repeat N] [--report] [--report-dir DIR]"

    public static func help(registry: [Experiment]) -> String {
        let names = registry.map { "  \($0.name.padding(toLength: 32, withPad: " ", startingAt: 0)) \($0.title)" }
        return """
        OVERVIEW: Runs the experiments of the articles on Operation and OperationQueue,
        times them, and sets each beside the article's figure and this platform's prediction.

        USAGE: \(line)
               run-experiments list [--time-scale X] [--profile linux|apple] [--format text|json|markdown]

        ARGUMENTS:
          all                               Every registered experiment.
          NAME                              One or more experiment names (see below).

        OPTIONS:
          --filter TEXT                     Experiments whose name or title contains TEXT, ignoring case (repeatable).
          --time-scale X                    Real seconds per article second, from 0.05 to 10. (default: 1)
          --profile P                       Platform to model; a profile other than this machine's predicts without
                                            running. (values: linux, apple; default: \(PlatformProfile.nativeKind.rawValue))
          --format F                        Output format. (values: text, json, markdown; default: text)
          --set KEY=VALUE                   Change a parameter of the selected experiments that have it (repeatable);
                                            'describe NAME' lists them.
          --cpus N                          Run pinned to N CPUs and predict for N; beyond this machine's CPUs,
                                            only predict.
          --repeat N                        Run each experiment N times, each in its own child; the summary shows
                                            min / median / max and how many passed. (default: 1)
          --report                          Also write the report folder: index.html, report.md, report.json, an
                                            SVG timeline per experiment and the image experiments' PNGs.
          --report-dir DIR                  The report folder (implies --report), replaced whole when the run ends;
                                            files in it the tool did not write stay. (default: Reports/latest)
          --version                         Show the version.
          -h, --help                        Show help information.

        SUBCOMMANDS:
          list                              List the experiments with the article's figures and the predictions.
          describe NAME                     Show an experiment's parameters, defaults and accepted values.
          new NAME                          Start your own experiment: writes Experiments/Playground/<Name>.swift
                                            (run it from the package's folder).
          help                              Show help information.

        EXPERIMENTS:
        \(names.joined(separator: "\n"))

        EXIT STATUS: 0 when every verdict passes, 1 when one fails or errors, 64 on a usage error, 74 when
          the results or the report cannot be written, 128 + N after signal N (129 SIGHUP, 130 SIGINT,
          143 SIGTERM), 141 when stdout's reader goes away.
        """
    }

    /// The lines printed after a usage error's message.
    public static let errorHint = """
    Usage: \(line)
    See 'run-experiments --help' for more information.
    """
}
