import ExperimentKit
import ExperimentModel
import ExperimentResults

/// The machine-readable document (`--format json`); its keys are documented in ExperimentReports.docc/JSONSchema.md.
package struct JSONRenderer: Reporter, Sendable {
    package init() {}

    /// Bumped when a key changes meaning or disappears; additions keep the version.
    package static let schemaVersion = 1

    /// The whole run as one document; `signal` is the one that interrupted the run, if one did
    /// (the document then holds only the experiments that finished).
    package static func document(
        _ results: [ExperimentResult], conditions: RunConditions, interruptedBy signal: Int32? = nil
    ) -> JSONValue {
        JSONRenderer().document(RunReport(results, conditions: conditions, interruptedBy: signal))
    }

    /// The whole run as one document.
    package func document(_ run: RunReport) -> JSONValue {
        .object([
            "schemaVersion": .number(Double(Self.schemaVersion)),
            "timeScale": .number(run.conditions.timeScale),
            "profile": .string(run.conditions.profile.rawValue),
            "host": Self.hostValue(run.conditions.host),
            "interrupted": run.signal.map { .object(["signal": .number(Double($0))]) } ?? .null,
            "experiments": .array(zip(run.results, run.sections).map(experiment)),
        ])
    }

    /// `list --format json`.
    package static func list(_ predictions: [(Experiment, Prediction)], conditions: RunConditions) -> JSONValue {
        let timeScale = conditions.timeScale
        return .object([
            "schemaVersion": .number(Double(schemaVersion)),
            "timeScale": .number(timeScale),
            "profile": .string(conditions.profile.rawValue),
            "host": hostValue(conditions.host),
            "experiments": .array(
                predictions.map { experiment, prediction in
                    .object([
                        "name": .string(experiment.name),
                        "title": .string(experiment.title),
                        "source": source(experiment.source),
                        "article": article(
                            ArticleFigure(
                                experiment.claim, source: experiment.source,
                                seconds: ArticleText.seconds(
                                    experiment.claim, parameters: prediction.parameters, timeScale: timeScale))),
                        "articleCorrections": corrections(experiment.articleCorrections, source: experiment.source),
                        "expected": expected(
                            prediction, bounds: Tolerance.standard.widen(prediction.totalRange),
                            rows: GanttChart.rows(prediction)),
                    ])
                }),
        ])
    }

    /// `describe NAME --format json`.
    package static func parameters(of experiment: Experiment) -> JSONValue {
        .object([
            "name": .string(experiment.name),
            "parameters": .array(
                experiment.parameters.map {
                    .object([
                        "key": .string($0.key), "default": .string($0.defaultValue.parameterText),
                        "accepted": .string($0.accepted), "summary": .string($0.summary),
                        "origin": origin($0.origin),
                        "articleValue": $0.articleValue.map { .string($0.parameterText) } ?? .null,
                    ])
                }),
        ])
    }

    /// `describe NAME --format json`: its parameters, and its code.
    package static func describe(_ experiment: Experiment, code listing: CodeListing) -> JSONValue {
        guard case .object(var fields) = parameters(of: experiment) else {
            preconditionFailure("parameters are a JSON object")
        }
        fields.append(Outcome.Field("code", code(listing)))
        return .object(fields)
    }

    /// An experiment's code: each block with its title, file and lines (`number`, `text`), or
    /// why it cannot be shown.
    static func code(_ listing: CodeListing) -> JSONValue {
        .object([
            "missing": listing.missing.map { .string($0) } ?? .null,
            "blocks": .array(
                listing.blocks.map { block in
                    .object([
                        "title": .string(block.title), "path": .string(block.path),
                        "lines": .array(
                            block.lines.map {
                                .object(["number": .number(Double($0.number)), "text": .string($0.text)])
                            }),
                    ])
                }),
        ])
    }

    /// Where a default comes from: `{"kind": "article"}`, or `{"kind": "chosen", "why": …}`, and
    /// the words every other format shows.
    static func origin(_ origin: ParameterSpec.Origin) -> JSONValue {
        switch origin {
        case .article:
            return .object(["kind": .string("article"), "why": .null, "text": .string(ArticleText.originText(origin))])
        case .chosen(let why, _):
            return .object([
                "kind": .string("chosen"), "why": .string(why), "text": .string(ArticleText.originText(origin)),
            ])
        }
    }

    static func hostValue(_ host: HostMachine) -> JSONValue {
        .object([
            "cpus": .number(Double(host.cpus)),
            "os": .string(host.os),
            "swift": .string(host.swift),
            "timerJitter": host.timerJitter.map {
                .object(["medianSeconds": .number($0.median), "maximumSeconds": .number($0.maximum)])
            } ?? .null,
            "loadAverage": host.loadAverage.map {
                .object([
                    "oneMinute": .number($0.oneMinute), "fiveMinutes": .number($0.fiveMinutes),
                    "fifteenMinutes": .number($0.fifteenMinutes),
                ])
            } ?? .null,
        ])
    }

    /// Null for a learner's experiment that names no article.
    static func source(_ source: ArticleSource) -> JSONValue {
        guard !source.isYourOwn else { return .null }
        return .object([
            "file": .string(source.file),
            "section": .string(source.section),
            "title": source.article.map { .string($0.title) } ?? .null,
            "author": source.article.map { .string($0.author) } ?? .null,
            "publication": source.article.map { .string($0.publication) } ?? .null,
        ])
    }

    /// The article's words (null when it has none for the experiment) and its figure in real
    /// seconds, `seconds` being null off the article's setting as in every other format.
    static func article(_ article: ArticleFigure) -> JSONValue {
        .object([
            "claim": article.words.map { .string($0) } ?? .null,
            "file": article.file.map { .string($0) } ?? .null,
            "seconds": .number(article.seconds),
            "unreachableBecause": article.unreachableBecause.map { .string($0) } ?? .null,
        ])
    }

    /// Each correction with the file its words are in (the experiment's own when it names none).
    static func corrections(_ corrections: [ArticleCorrection], source: ArticleSource) -> JSONValue {
        .array(
            corrections.map {
                .object([
                    "quote": .string($0.quote),
                    "file": .string($0.file ?? source.file),
                    "here": .string($0.here),
                    "sentence": .string($0.sentence),
                ])
            })
    }

    static func expected(_ prediction: Prediction, bounds: ClosedRange<Double>, rows: [GanttChart.Row]) -> JSONValue {
        .object([
            "seconds": .number(prediction.total),
            "lowerSeconds": .number(bounds.lowerBound),
            "upperSeconds": .number(bounds.upperBound),
            "leavesOutCPUWork": .bool(prediction.leavesOutCPUWork),
            "operations": windows(rows),
        ])
    }

    /// A model's nominal window for each operation that starts; `endSeconds` null for work that
    /// never ends.
    static func windows(_ rows: [GanttChart.Row]) -> JSONValue {
        .array(
            rows.map {
                .object([
                    "label": .string($0.label), "startSeconds": .number($0.start), "endSeconds": .number($0.end),
                    "line": line($0.line),
                ])
            })
    }

    /// `"PrinterQueue.swift:31"`, or null where the line is not known.
    static func line(_ line: SourceLine?) -> JSONValue {
        line.map { .string($0.description) } ?? .null
    }

    /// A race's possible outcomes and the one that happened; null for any other kind.
    static func race(_ kind: ResultKind) -> JSONValue {
        guard case .race(let race) = kind else { return .null }
        return .object(["possible": .strings(race.possible), "happened": race.happened.map { .string($0) } ?? .null])
    }

    /// The values the pages show of an experiment, as JSON: the article, the settings, what it
    /// printed, the timelines, the notes, the outcome, the checks and the verdict.
    package func section(_ section: ExperimentSection) -> JSONValue {
        // The timeline drawn first: the measured one, or the model's when nothing ran, its
        // threads then the model's workers.
        let operations: [JSONValue] = (section.measured ?? section.model).rows.map { row in
            .object([
                "label": .string(row.label),
                "startSeconds": .number(row.start),
                "endSeconds": .number(row.end),
                "thread": .number(Double(row.thread)),
                "cancelled": .bool(row.cancelled),
                "finished": .bool(row.finished),
                "holdsThread": .bool(row.holdsThread),
                "kind": row.kind.map { .string($0.rawValue) } ?? .null,
                "suspensions": Self.stretches(row.suspensions ?? []),
                "line": Self.line(row.line),
            ])
        }
        // The parts are typed one by one: as one literal, with `.object` and `.number` each
        // overloaded, the compiler spends seconds type-checking the whole.
        let settings = section.settings?.values ?? []
        let parameters: [Outcome.Field] = settings.map { Outcome.Field($0.key, .string($0.value.parameterText)) }
        let origins: [Outcome.Field] = zip(settings, section.settings?.origins ?? []).map {
            Outcome.Field($0.key, .string(ArticleText.originText($1)))
        }
        let reason: JSONValue = section.reason.map { .string($0) } ?? .null
        let explanation: JSONValue =
            section.notes.first { $0.kind == .platformDifference }.map { .string($0.text) } ?? .null
        let checks: [JSONValue] = section.checks.map { check in
            .object([
                "description": .string(check.description), "passed": .bool(check.passed), "note": .bool(check.isNote),
            ])
        }
        let fields: KeyValuePairs<String, JSONValue> = [
            "name": .string(section.name),
            "title": .string(section.title),
            "source": Self.source(section.source),
            "parameters": .object(parameters),
            "parameterOrigins": .object(origins),
            "verdict": .string(section.verdict.rawValue),
            "reason": reason,
            "article": Self.article(section.article),
            "articleCorrections": Self.corrections(section.corrections, source: section.source),
            "explanation": explanation,
            "operations": .array(operations),
            "output": Self.output(section.printed),
            "sleeps": Self.sleeps(section.sleeps),
            "outcome": .object(section.outcome),
            "checks": .array(checks),
        ]
        return .object(fields)
    }

    /// What the experiment printed, each line with its time, thread and line of code.
    static func output(_ printed: [PrintedLine]) -> JSONValue {
        .array(
            printed.map {
                .object([
                    "atSeconds": .number($0.at), "text": .string($0.text), "thread": .number(Double($0.thread)),
                    "line": line($0.line),
                ])
            })
    }

    /// Each sleep the experiment made: when, how long, on which thread, whether it was a task's
    /// suspension (holding no thread), from which line.
    static func sleeps(_ sleeps: [MeasuredSleep]) -> JSONValue {
        .array(
            sleeps.map {
                .object([
                    "atSeconds": .number($0.at), "seconds": .number($0.seconds), "thread": .number(Double($0.thread)),
                    "line": line($0.line), "suspended": .bool(!$0.holdsThread),
                ])
            })
    }

    /// Stretches of a row that held no thread, each from `startSeconds` to `endSeconds`.
    static func stretches(_ stretches: [ClosedRange<Double>]) -> JSONValue {
        .array(
            stretches.map { .object(["startSeconds": .number($0.lowerBound), "endSeconds": .number($0.upperBound)]) })
    }

    /// The section's values, then what only JSON gives: how the run ended, every figure as a
    /// number, both models' totals and windows, the CPU costs and the repeats.
    func experiment(_ result: ExperimentResult, _ section: ExperimentSection) -> JSONValue {
        guard case .object(let shown) = self.section(section) else { preconditionFailure("a section is a JSON object") }
        return .object(
            shown + [
                Outcome.Field("expectedEnding", .string(result.experiment.expectedEnding.name)),
                Outcome.Field("kind", .string(result.kind.name)),
                Outcome.Field("ending", result.childEnding.map { .string($0.name) } ?? .null),
                Outcome.Field("timed", .bool(result.experiment.timing == .predicted)),
                Outcome.Field("measuredSeconds", .number(result.measurement?.totalSeconds)),
                Outcome.Field("enqueueSeconds", .number(result.measurement?.enqueueSeconds)),
                Outcome.Field("poolSettleSeconds", .number(result.measurement?.poolSettleSeconds)),
                Outcome.Field("wallSeconds", .number(result.wallSeconds)),
                Outcome.Field("deltaSeconds", .number(result.deltaSeconds)),
                Outcome.Field("race", Self.race(result.kind)),
                Outcome.Field(
                    "expected",
                    Self.expected(result.prediction, bounds: result.expectedBounds, rows: section.model.rows)),
                Outcome.Field(
                    "apple",
                    .object([
                        "seconds": .number(result.applePrediction.total),
                        "operations": Self.windows(section.apple.rows),
                    ])),
                Outcome.Field(
                    "cpuCosts",
                    .array(
                        (result.measurement?.cpuCosts ?? []).map {
                            .object([
                                "label": .string($0.label), "seconds": .number($0.seconds),
                                "source": .string($0.source.rawValue),
                            ])
                        })),
                Outcome.Field(
                    "earlier",
                    result.earlier.map {
                        .object(["seconds": .number($0.seconds), "comparable": .bool($0.comparable)])
                    } ?? .null),
                Outcome.Field("runsAsked", .number(Double(result.runsAsked))),
                Outcome.Field(
                    "repeats",
                    .array(
                        result.repeats.map {
                            .object([
                                "measuredSeconds": .number($0.measuredSeconds), "wallSeconds": .number($0.wallSeconds),
                                "verdict": .string($0.verdict.rawValue),
                                "reason": $0.reason.map { .string($0) } ?? .null,
                                "lowerSeconds": .number($0.bounds?.lowerBound),
                                "upperSeconds": .number($0.bounds?.upperBound),
                            ])
                        })),
            ])
    }
}
