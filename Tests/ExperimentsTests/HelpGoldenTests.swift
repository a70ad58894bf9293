import Foundation
import Testing

/// `run-experiments --help`, whole: the first thing a learner reads, and generated from the
/// registry and the options; a change here is a change users see, so it is made on purpose.
@Suite struct HelpGoldenTests {
    @Test func helpIsTheGolden() throws {
        let help = try BuiltBinary.run(["--help"], timeout: 30)
        #expect(help.status == 0, "\(help.stderr)")
        #expect(help.stdout == Self.golden)
        #expect(help.stderr.isEmpty)
    }

    static let golden = """
        OVERVIEW: Runs the experiments of the articles on Operation and OperationQueue,
        times them, and sets each beside the article's figure and this platform's prediction.

        USAGE: run-experiments <all | NAME ...> [--filter TEXT ...] [--time-scale X] [--profile linux|apple] [--format text|json|markdown] [--set KEY=VALUE ...] [--cpus N] [--repeat N] [--report] [--report-dir DIR]
               run-experiments list [--filter TEXT ...] [--time-scale X] [--profile linux|apple] [--format text|json|markdown] [--cpus N]

        ARGUMENTS:
          all                               Every registered experiment.
          NAME                              One or more experiment names (see below).

        OPTIONS:
          --filter TEXT                     Experiments whose name or title contains TEXT, ignoring case. (repeatable)
          --time-scale X                    Real seconds per article second. (a number from 0.05 to 10; default: 1)
          --profile P                       Platform to model; a profile other than this machine's predicts without
                                            running. (values: linux, apple; default: linux)
          --format F                        Output format. (values: text, json, markdown; default: text)
          --set KEY=VALUE                   Change a parameter of the selected experiments that have it; 'describe
                                            NAME' lists them. (repeatable)
          --cpus N                          Run pinned to N CPUs and predict for N; beyond this machine's CPUs, only
                                            predict. (a whole number from 1 to 64)
          --repeat N                        Run each experiment N times, each in its own child; the summary shows the
                                            minimum, median and maximum, and how many passed. (a whole number from 1
                                            to 100; default: 1)
          --report                          Also write the report folder: index.html, report.md, report.json, an SVG
                                            timeline per experiment and the image experiments' PNGs.
          --report-dir DIR                  The report folder (implies --report), replaced whole when the run ends;
                                            files in it the tool did not write stay. (default: Reports/latest)
          --version                         Show the version.
          -h, --help                        Show help information.

        SUBCOMMANDS:
          list                              List the experiments with the article's figures and the predictions.
          describe NAME                     Show an experiment's parameters, defaults and accepted values.
          new NAME                          Start your own experiment: writes Experiments/Playground/<Name>.swift (run
                                            it from the package's folder).
          help                              Show help information.

        EXPERIMENTS:
          concurrent-printer-queue         Seven closures on a default-width queue
          printer-queue-max-2              Seven closures, maxConcurrentOperationCount = 2
          qos-ordering                     A .userInitiated operation jumps the width-2 queue
          serial-queue                     maxConcurrentOperationCount = 1: one after another
          block-operation-multi-printer    One BlockOperation, seven execution blocks
          sum-operation                    SumOperation: six asynchronous additions
          async-dependency-bug             A dependency that does not wait
          async-operation-pitfalls         The 2017 AsyncOperation's two bugs, beside the fix
          cancellation-ignored             cancel() on a loop that never looks
          cancellation-at-2s               cancel() on a loop that checks isCancelled
          cancellation-progress-at-2s      Progress closure, cancelled at 2 s
          cancellation-progress-at-4s      Progress closure, cancelled at 4 s
          cancellation-semantics           cancel() before, during and after; cancelAllOperations()
          group-cancellation               GroupAdd cancelled at 1 s (the article's instant: a race)
          group-cancellation-at-500ms      GroupAdd cancelled at 0.5 s
          group-cancellation-at-1500ms     GroupAdd cancelled at 1.5 s
          filter-images                    Filtering five images on a queue
          load-and-filter                  LoadAndFilter: a download, then a filter that depends on it
          four-images                      Four ImageProviders
          four-images-cancel-6s            Four ImageProviders, cancelled at 6 s
          table-view-scroll                Pattern 3: ImageProviders following a scrolling table
          dependent-thread-reuse           Dependent operations one after another, independent ones side by side
          underlying-queue                 underlyingQueue: run on a supplied DispatchQueue, then change it too late
          block-operation-three-blocks     A queued BlockOperation with three execution blocks
          max-2-three-operations           Three operations, maxConcurrentOperationCount = 2
          dependency-operator              The ==> operator orders three operations left to right
          hello-world-group                GroupOperation: "Hello" ==> "World" as one operation
          group-error-collection           A race in the GroupOperation's error handling: errors lost when two fail at once
          operation-observer               An OperationObserver without KVO
          data-passing-adapter             An adapter BlockOperation passes op1's data to op2
          mutual-exclusivity-by-name       One connectivity alert: the others found by name and cancelled
          dependency-cycle                 A depends on B, B depends on A: a deadlock, found before it happens
          suspended-queue                  isSuspended: running work goes on, nothing new starts
          serial-queue-readiness-order     A serial queue runs the first ready operation, even the 9th
          queue-quality-of-service         A queue's qualityOfService, overridden by an operation's own
          cross-queue-dependency           A dependency across two queues is honoured; a cycle across them never starts
          operation-runs-once              An operation runs once: start() again does nothing, a second add traps
          start-thread                     start() by hand runs on the caller's thread; a queue calls it on another
          completion-block-hand-off        A completionBlock hands the download to its dependent: a race with the dependent's start
          concurrent-printer-queue-async   Seven Task.sleep children in a TaskGroup
          printer-queue-max-2-async        Seven Task.sleep children, two in flight
          sum-operation-async              Six additions in a TaskGroup
          cancellation-at-2s-async         Task.cancel() on a loop that calls Task.checkCancellation()
          group-cancellation-async         GroupAdd as a TaskGroup, cancelled at 0.5 s
          four-images-async                Four images as child tasks of a TaskGroup
          task-overhead                    What one task costs: Operation, Dispatch block, Swift task

        EXIT STATUS: 0 when every verdict passes, 1 when one fails or errors, 64 on a usage error, 74 when
          the results or the report cannot be written, 128 + N after signal N (129 SIGHUP, 130 SIGINT,
          143 SIGTERM), 141 when stdout's reader goes away.

        """
}
