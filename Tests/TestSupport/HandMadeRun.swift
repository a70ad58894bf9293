import ExperimentKit
import ExperimentModel
import ExperimentResults

/// One hand-made run of a small experiment that every format renders: three labels that test
/// escaping (Cyrillic, emoji, markup), a measurement with a finished, a cancelled and an
/// unfinished span, and the conditions of a 2-CPU Linux host. No timed run, so every figure is fixed.
package enum HandMadeRun {
    package static let labels = ["Каждый 🍎", "Tom & Jerry <b>", "Фазан 🍆"]

    /// Three one-second sleeps on a default-width queue: on two CPUs the third waits for the
    /// pool monitor's first tick (1.97 s); on Apple all three run at once (1 s).
    package static func experiment(name: String) -> Experiment {
        Experiment(name, source: ArticleSource(file: "000_test.txt", section: "Experiment 1")) { _, _ in Outcome() }
            .title("Three closures & a <queue>")
            .summary("Three closures each sleep(1) on a default-width queue.")
            .claim("All three finish in \"1 second\".", seconds: 1)
            .expectedOutcome("All three labels print.")
            .platformDifference("Linux's pool starts with one worker per CPU.")
            .plannedAs {
                var workload = Workload()
                let queue = workload.addQueue(QueueSpec(name: "printerQueue", maxConcurrentOperationCount: nil))
                for label in labels {
                    workload.add(PlannedOperation(label: label, articleSeconds: 1, executor: .queue(queue)))
                }
                return workload
            }
    }

    /// The experiment "run": one span ran, one cancelled, one still running when stopped.
    package static func result(name: String = "tiny-queue", images: [String] = [], measured: Bool = true)
        -> ExperimentResult
    {
        let experiment = experiment(name: name)
        let workload = experiment.workload()
        let prediction = Scheduler.predict(workload, profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 1)
        let apple = Scheduler.predict(workload, profile: PlatformProfile(kind: .apple, cpus: 2), timeScale: 1)
        var outcome = Outcome([
            Outcome.Field("startOrder", .strings(labels)), Outcome.Field("sums", .array([.number(3), .number(7)])),
        ])
        if !images.isEmpty {
            outcome.set("images", .strings(images))
        }
        let measurement = MeasuredRun(
            totalSeconds: 2.4,
            enqueueSeconds: 0.0003,
            operations: [
                OperationSpan(label: labels[0], start: 0, end: 1, thread: 1),
                OperationSpan(label: labels[1], start: 0, end: 0.5, thread: 2, cancelled: true),
                OperationSpan(label: labels[2], start: 0.97, end: 2.4, thread: 0, finished: false),
            ],
            output: [],
            outcome: outcome
        )
        return ExperimentResult(
            experiment: experiment, prediction: prediction, applePrediction: apple,
            measurement: measured ? measurement : nil,
            verdict: measured ? .fail : .predicted,
            reason: measured ? "'Фазан 🍆' was still running when stopped" : "profile linux is not this machine's",
            checks: measured
                ? [
                    Check("total 2.40 s within 1.82–2.15 s", passed: false),
                    Check("at most 2 ran at once (predicted 2)", passed: true),
                ] : [],
            childEnding: measured ? .returned : nil
        )
    }

    package static let host = HostMachine(cpus: 2, os: "Linux 6.0.0", swift: "6.3")
    /// The conditions of the reports these tests write: `host` at scale 1, the linux profile.
    package static let conditions = RunConditions(host: host, timeScale: 1, profile: .linux)
}
