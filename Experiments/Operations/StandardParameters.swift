import ExperimentKit

/// The knobs the experiments share, so the same key means the same thing everywhere: each key
/// and its type are stated once here, declared with an experiment's default by the functions of
/// ``StandardParameters`` and read back as `context.parameters[.pairs]`.
extension ParameterKey where Value == Int {
    /// How many operations.
    static var count: Self { Self("count") }
    /// How many pairs are summed.
    static var pairs: Self { Self("pairs") }
}

extension ParameterKey where Value == Double {
    /// Article seconds each operation sleeps.
    static var sleep: Self { Self("sleep") }
    /// When cancel() comes, in article seconds.
    static var cancelAt: Self { Self("cancel-at") }

    /// The simulated download of `image`, in article seconds.
    static func latency(_ image: String) -> Self {
        Self("latency.\(image.lowercased().replacingOccurrences(of: " ", with: "-"))")
    }
}

extension ParameterKey where Value == QueueWidth {
    /// A queue's maxConcurrentOperationCount.
    static var width: Self { Self("width") }
}

extension ParameterKey where Value == ServiceClass {
    /// An operation's qualityOfService.
    static var qos: Self { Self("qos") }
}

/// The shared knobs with an experiment's default (the article's value unless an origin says it
/// is chosen here) and the summary `describe` shows.
enum StandardParameters {
    static func count(_ value: Int, _ range: ClosedRange<Int> = 1...20, of what: String = "operations") -> ParameterSpec
    {
        .count(.count, summary: "how many \(what)", default: value, range: range)
    }

    static func sleep(_ value: Double, of what: String = "each operation sleeps") -> ParameterSpec {
        .seconds(.sleep, summary: "article seconds \(what)", default: value, range: 0.1...10)
    }

    /// nil is the queue's default width.
    static func width(_ value: Int?) -> ParameterSpec {
        .width(
            .width, summary: "the queue's maxConcurrentOperationCount",
            default: value.map(QueueWidth.limited) ?? .default)
    }

    static func qos(_ value: ServiceClass, of what: String) -> ParameterSpec {
        .serviceClass(.qos, summary: "the qualityOfService of \(what)", default: value)
    }

    /// `origin` says whether the article states the instant or the project chose it.
    static func cancelAt(_ value: Double, origin: ParameterSpec.Origin = .article) -> ParameterSpec {
        .seconds(
            .cancelAt, summary: "when cancel() comes, in article seconds", default: value, origin: origin,
            range: 0.1...20)
    }

    static func pairs(_ value: Int, _ range: ClosedRange<Int>) -> ParameterSpec {
        .count(.pairs, summary: "how many pairs are summed", default: value, range: range)
    }

    /// The article downloads real pictures and states no latency: every one is chosen here.
    static func latency(_ image: String, _ value: Double, why: String) -> ParameterSpec {
        .seconds(
            .latency(image), summary: "the simulated download of \(image), in article seconds", default: value,
            origin: .chosen(why, insteadOf: Double?.none), range: 0.1...20)
    }
}

/// The values an article's code sets, written in the code as the article writes them, and the
/// knob that runs another: `printerQueue.maxConcurrentOperationCount = context.width(2)` is the
/// article's 2 until `--set width=3`. The knob's default (declared after the code, for
/// `describe` and `--set`) must be the value the code writes: a rehearsal with the defaults
/// stops at the line that disagrees.
extension RunContext {
    /// The queue width the article sets, or the one `--set width=N` sets instead.
    func width(_ articleWidth: Int) -> Int {
        articleValue(articleWidth, or: parameters[.width].maxConcurrentOperationCount, key: .width)
    }

    /// The qualityOfService the article sets, or the one `--set qos=…` sets instead.
    func qualityOfService(_ articleQuality: QualityOfService) -> QualityOfService {
        articleValue(articleQuality, or: QualityOfService(parameters[.qos]), key: .qos)
    }

    /// `knobValue`, which is `articleValue` unless the command line set the knob to another.
    private func articleValue<Value: Equatable, Key>(_ articleValue: Value, or knobValue: Value, key: ParameterKey<Key>)
        -> Value
    {
        let isSet = zip(parameters.values, parameters.origins).contains { $0.key == key.name && $1 == .set }
        precondition(
            isSet || knobValue == articleValue, "the '\(key.name)' knob's default is not the value the code writes")
        return knobValue
    }
}
