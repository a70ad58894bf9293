/// The machine-readable document (`--format json`); its keys are documented in the README.
public enum JSONRenderer {
    /// Bumped when a key changes meaning or disappears; additions keep the version.
    public static let schemaVersion = 1

    /// The whole run as one document; `signal` is the one that interrupted the run, if one did
    /// (the document then holds only the experiments that finished).
    public static func document(_ results: [ExperimentResult], host: Host, timeScale: Double, profile: PlatformProfile.Kind, interruptedBy signal: Int32? = nil) -> JSONValue {
        .object([
            "schemaVersion": .number(Double(schemaVersion)),
            "timeScale": .number(timeScale),
            "profile": .string(profile.rawValue),
            "host": hostValue(host),
            "interrupted": signal.map { .object(["signal": .number(Double($0))]) } ?? .null,
            "experiments": .array(results.map(experiment)),
        ])
    }

    /// `list --format json`.
    public static func list(_ predictions: [(Experiment, Prediction)], host: Host, timeScale: Double, profile: PlatformProfile.Kind) -> JSONValue {
        .object([
            "schemaVersion": .number(Double(schemaVersion)),
            "timeScale": .number(timeScale),
            "profile": .string(profile.rawValue),
            "host": hostValue(host),
            "experiments": .array(predictions.map { experiment, prediction in
                .object([
                    "name": .string(experiment.name),
                    "title": .string(experiment.title),
                    "source": source(experiment.source),
                    "article": article(experiment.claim, seconds: ArticleText.seconds(experiment.claim, parameters: prediction.parameters, timeScale: timeScale), source: experiment.source),
                    "articleCorrections": corrections(experiment),
                    "expected": expected(prediction, bounds: Tolerance.standard.widen(prediction.totalRange)),
                ])
            }),
        ])
    }

    /// `describe NAME --format json`.
    public static func parameters(of experiment: Experiment) -> JSONValue {
        .object([
            "name": .string(experiment.name),
            "parameters": .array(experiment.parameters.map {
                .object(["key": .string($0.key), "default": .string($0.defaultValue), "accepted": .string($0.accepted), "summary": .string($0.summary)])
            }),
        ])
    }

    static func hostValue(_ host: Host) -> JSONValue {
        .object([
            "cpus": .number(Double(host.cpus)),
            "os": .string(host.os),
            "swift": .string(host.swift),
            "timerJitter": host.timerJitter.map { .object(["medianSeconds": .number($0.median), "maximumSeconds": .number($0.maximum)]) } ?? .null,
            "loadAverage": host.loadAverage.map { .object(["oneMinute": .number($0.oneMinute), "fiveMinutes": .number($0.fiveMinutes), "fifteenMinutes": .number($0.fifteenMinutes)]) } ?? .null,
        ])
    }

    static func source(_ source: ArticleSource) -> JSONValue {
        .object(["file": .string(source.file), "section": .string(source.section)])
    }

    /// The article's words (null when it has none for the experiment) and its figure in real
    /// seconds, `seconds` being null off the article's setting as in every other format.
    static func article(_ claim: ArticleClaim, seconds: Double?, source: ArticleSource) -> JSONValue {
        .object([
            "claim": claim.quote.map { .string($0) } ?? .null,
            "file": claim.quote == nil ? .null : .string(claim.file ?? source.file),
            "seconds": .number(seconds),
            "unreachableBecause": claim.unreachableBecause.map { .string($0) } ?? .null,
        ])
    }

    static func corrections(_ experiment: Experiment) -> JSONValue {
        .array(experiment.articleCorrections.map {
            .object([
                "quote": .string($0.quote),
                "file": .string($0.file ?? experiment.source.file),
                "here": .string($0.here),
                "sentence": .string($0.sentence),
            ])
        })
    }

    static func expected(_ prediction: Prediction, bounds: ClosedRange<Double>) -> JSONValue {
        .object([
            "seconds": .number(prediction.total),
            "lowerSeconds": .number(bounds.lowerBound),
            "upperSeconds": .number(bounds.upperBound),
            "leavesOutCPUWork": .bool(prediction.leavesOutCPUWork),
            "operations": predictedWindows(prediction),
        ])
    }

    /// A model's nominal window for each operation that starts; `endSeconds` null for work that
    /// never ends.
    static func predictedWindows(_ prediction: Prediction) -> JSONValue {
        .array(prediction.nominal.spans.compactMap { $0 }.map {
            .object(["label": .string($0.label), "startSeconds": .number($0.start), "endSeconds": .number($0.end)])
        })
    }

    /// A race's possible outcomes and the one that happened; null for any other kind.
    static func race(_ kind: ResultKind) -> JSONValue {
        guard case .race(let race) = kind else { return .null }
        return .object(["possible": .strings(race.possible), "happened": race.happened.map { .string($0) } ?? .null])
    }

    static func experiment(_ result: ExperimentResult) -> JSONValue {
        let operations: [JSONValue]
        if let measurement = result.measurement {
            operations = measurement.operations.map {
                .object([
                    "label": .string($0.label),
                    "startSeconds": .number($0.start),
                    "endSeconds": .number($0.end),
                    "thread": .number(Double($0.thread)),
                    "cancelled": .bool($0.cancelled),
                    "finished": .bool($0.finished),
                ])
            }
        } else {
            // Nothing ran: the predicted timeline, threads being the model's workers.
            operations = result.prediction.nominal.spans.compactMap { $0 }.map {
                .object([
                    "label": .string($0.label),
                    "startSeconds": .number($0.start),
                    "endSeconds": .number($0.end),
                    "thread": .number(Double($0.lane)),
                    "cancelled": .bool($0.cancelled),
                    "finished": .bool($0.end.isFinite),
                ])
            }
        }
        return .object([
            "name": .string(result.experiment.name),
            "title": .string(result.experiment.title),
            "source": source(result.experiment.source),
            "expectedEnding": .string(result.experiment.expectedEnding.name),
            "kind": .string(result.kind.name),
            "ending": result.childEnding.map { .string($0.name) } ?? .null,
            "timed": .bool(result.experiment.timing == .predicted),
            "parameters": .object(result.prediction.parameters.values.map { Outcome.Field($0.key, .string($0.value)) }),
            "verdict": .string(result.verdict.rawValue),
            "reason": result.reason.map { .string($0) } ?? .null,
            "measuredSeconds": .number(result.measurement?.totalSeconds),
            "enqueueSeconds": .number(result.measurement?.enqueueSeconds),
            "wallSeconds": .number(result.wallSeconds),
            "deltaSeconds": .number(result.deltaSeconds),
            "race": race(result.kind),
            "expected": expected(result.prediction, bounds: result.expectedBounds),
            "apple": .object(["seconds": .number(result.applePrediction.total), "operations": predictedWindows(result.applePrediction)]),
            "article": article(result.experiment.claim, seconds: result.articleSeconds, source: result.experiment.source),
            "articleCorrections": corrections(result.experiment),
            "explanation": result.differsFromArticlePlatform ? .string(result.experiment.platformDifference) : .null,
            "operations": .array(operations),
            "output": .array((result.measurement?.output ?? []).map {
                .object(["atSeconds": .number($0.at), "text": .string($0.text), "thread": .number(Double($0.thread))])
            }),
            "outcome": .object(result.measurement?.outcome.fields ?? []),
            "cpuCosts": .array((result.measurement?.cpuCosts ?? []).map {
                .object(["label": .string($0.label), "seconds": .number($0.seconds), "source": .string($0.source.rawValue)])
            }),
            "checks": .array(result.checks.map { .object(["description": .string($0.description), "passed": .bool($0.passed)]) }),
            "repeats": .array(result.repeats.map {
                .object([
                    "measuredSeconds": .number($0.measuredSeconds), "verdict": .string($0.verdict.rawValue), "reason": $0.reason.map { .string($0) } ?? .null,
                    "lowerSeconds": .number($0.bounds?.lowerBound), "upperSeconds": .number($0.bounds?.upperBound),
                ])
            }),
        ])
    }
}
