import ExperimentModel
import Foundation

extension TimelineEvent {
    /// The event as a run child sends it to the runner: one line of JSON (without its line
    /// break), the text `encoder` writes for it, which the runner's `JSONDecoder` reads.
    ///
    /// The events are written here directly. Those of the timed path (each operation's
    /// beginning and end, each print, sleep and recorded result) are written on the
    /// experiment's own threads, between an operation's sleep and the next one's, often just
    /// after a sleep, when none of the code is in the processor's caches: `JSONEncoder`'s
    /// generic walk of the value runs a great deal of code there, this a little. The others
    /// (the clock's start, the total, a CPU cost, a difference from the plan) come before the
    /// clock or while the runner waits for the child's end, and the first use of `JSONEncoder`
    /// in a process costs about a millisecond. Only a span that names its line of code, which
    /// a run never records, goes through `encoder`. Nil when the event cannot be written (a
    /// number JSON cannot hold).
    public func jsonLine(encoder: JSONEncoder) -> [UInt8]? {
        var line = EventLineWriter()
        switch self {
        case .clockStarted(let origin, let settle):
            line.event("clockStarted") { fields in
                fields.integer("uptimeNanoseconds", origin)
                if let settle { fields.number("poolSettleSeconds", settle) }
            }
        case .began(let label, let at, let thread, let kind):
            line.event("began") { fields in
                fields.string("label", label)
                fields.number("at", at)
                fields.integer("thread", thread)
                if let kind { fields.string("kind", kind.rawValue) }
            }
        case .ended(let span) where span.line == nil && span.suspensions == nil:
            line.event("ended") { $0.object("_0") { $0.span(span) } }
        case .ended:
            // A span that names its line of code or its suspensions: a report's, never a run's.
            return (try? encoder.encode(self)).map(Array.init)
        case .printed(let printed):
            line.event("printed") { $0.object("_0") { $0.printed(printed) } }
        case .slept(let sleep):
            line.event("slept") { $0.object("_0") { $0.sleep(sleep) } }
        case .enqueued(let seconds):
            line.event("enqueued") { $0.number("seconds", seconds) }
        case .finished(let total):
            line.event("finished") { $0.number("totalSeconds", total) }
        case .modelOutOfDate(let difference):
            line.event("modelOutOfDate") { $0.string("_0", difference) }
        case .cpuCost(let cost):
            line.event("cpuCost") { fields in
                fields.object("_0") { fields in
                    fields.string("label", cost.label)
                    fields.number("seconds", cost.seconds)
                    fields.string("source", cost.source.rawValue)
                }
            }
        case .outcome(let field):
            line.event("outcome") { fields in
                fields.object("_0") { fields in
                    fields.string("key", field.key)
                    fields.value("value", field.value)
                }
            }
        }
        return line.isValid ? line.bytes : nil
    }
}

/// Writes one event's JSON object field by field, as `JSONEncoder` writes the synthesized coding
/// of the events: a case as an object of its values under the case's name, an unlabelled value
/// as `_0`, an absent optional left out.
private struct EventLineWriter {
    private(set) var bytes: [UInt8] = []
    /// False once a number JSON cannot hold (infinite, or not a number) was given.
    private(set) var isValid = true
    private var needsComma = false

    init() {
        bytes.reserveCapacity(320)
    }

    /// The line: the event's case, its values the fields `fields` writes.
    mutating func event(_ name: String, _ fields: (inout Self) -> Void) {
        objectValue { $0.object(name, fields) }
    }

    /// A field whose value is the object of the fields `fields` writes.
    mutating func object(_ name: String, _ fields: (inout Self) -> Void) {
        key(name)
        objectValue(fields)
    }

    /// A field whose value is an array, each element written by `element`.
    mutating func array<Element>(_ name: String, _ elements: [Element], _ element: (inout Self, Element) -> Void) {
        key(name)
        bytes.append(UInt8(ascii: "["))
        for (offset, item) in elements.enumerated() {
            if offset > 0 { bytes.append(UInt8(ascii: ",")) }
            element(&self, item)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func string(_ name: String, _ value: String) {
        key(name)
        JSONString.append(value, to: &bytes)
    }

    mutating func number(_ name: String, _ value: Double) {
        key(name)
        isValid = isValid && value.isFinite
        // The shortest text that reads back as the same number.
        bytes += value.description.utf8
    }

    mutating func integer<Value: BinaryInteger>(_ name: String, _ value: Value) {
        key(name)
        bytes += String(value).utf8
    }

    mutating func bool(_ name: String, _ value: Bool) {
        key(name)
        bytes += (value ? "true" : "false").utf8
    }

    /// The `calledFrom` of a printed line or a sleep, when it has one.
    /// An operation's span, without the line a report gives it.
    mutating func span(_ span: OperationSpan) {
        string("label", span.label)
        number("start", span.start)
        number("end", span.end)
        integer("thread", span.thread)
        bool("cancelled", span.cancelled)
        bool("finished", span.finished)
        if let kind = span.kind { string("kind", kind.rawValue) }
    }

    mutating func printed(_ printed: PrintedLine) {
        number("at", printed.at)
        string("text", printed.text)
        integer("thread", printed.thread)
        stack(printed.calledFrom)
    }

    mutating func sleep(_ sleep: MeasuredSleep) {
        number("at", sleep.at)
        number("seconds", sleep.seconds)
        integer("thread", sleep.thread)
        if let suspended = sleep.suspended { bool("suspended", suspended) }
        if let row = sleep.row { string("row", row) }
        stack(sleep.calledFrom)
    }

    mutating func stack(_ stack: CallSite.Stack?) {
        guard let stack else { return }
        object("calledFrom") { fields in
            fields.string("image", stack.image)
            fields.array("addresses", stack.addresses) { fields, address in fields.bytes += String(address).utf8 }
        }
    }

    /// A field whose value is a recorded result's (`JSONValue`).
    mutating func value(_ name: String, _ value: JSONValue) {
        key(name)
        jsonValue(value)
    }

    /// A `JSONValue`, written as an event is: its case, its value as `_0`.
    private mutating func jsonValue(_ value: JSONValue) {
        objectValue { fields in
            switch value {
            case .null: fields.object("null") { _ in }
            case .bool(let flag): fields.object("bool") { $0.bool("_0", flag) }
            case .number(let number): fields.object("number") { $0.number("_0", number) }
            case .string(let text): fields.object("string") { $0.string("_0", text) }
            case .array(let items):
                fields.object("array") { $0.array("_0", items) { $0.jsonValue($1) } }
            case .object(let members):
                fields.object("object") { fields in
                    fields.array("_0", members) { fields, member in
                        fields.objectValue { fields in
                            fields.string("key", member.key)
                            fields.value("value", member.value)
                        }
                    }
                }
            }
        }
    }

    /// An object of the fields `fields` writes.
    private mutating func objectValue(_ fields: (inout Self) -> Void) {
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        fields(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    private mutating func key(_ name: String) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        JSONString.append(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma = true
    }
}
