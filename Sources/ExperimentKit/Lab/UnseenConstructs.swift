import ExperimentModel
import Foundation
import SwiftScanner

extension Experiment {
    /// What a learner's code makes that no instrumented call reports, so that the rehearsal
    /// cannot see it being made: Swift concurrency's discarding task groups, an `async let` whose wait the text does not place, a
    /// task's `value` awaited, actors, children and tasks Swift starts without the lab, sleeps
    /// on a clock of the code's own, and run loops, threads and timers of the code's own. They are found in the text of its file, each at its line;
    /// none for an article's experiment, whose model is written with it.
    public var unseenConstructs: [UnmodelledConstruct] {
        guard isLearners, let declaration, let text = try? String(contentsOfFile: declaration.path, encoding: .utf8)
        else { return [] }
        let file = URL(fileURLWithPath: declaration.path).lastPathComponent
        return UnseenConstruct.find(in: text).filter {
            $0.line >= declaration.line || $0.construct.countsAnywhereInTheFile
        }.map { found in
            UnmodelledConstruct(
                construct: found.construct.name, site: "\(file):\(found.line)", why: found.construct.why)
        }
    }
}

/// A construct the rehearsal cannot see, as the code writes it.
struct UnseenConstruct: Sendable {
    var name: String
    /// How the code writes it: a regular expression over a line without its comments and strings.
    var pattern: String
    var why: String
    /// Whether it counts wherever the file has it, not only in the experiment's code: a type the
    /// experiment's code uses is declared before it.
    var countsAnywhereInTheFile = false

    static let all: [UnseenConstruct] = [
        UnseenConstruct(
            name: "a discarding task group", pattern: #"\bwith(Throwing)?DiscardingTaskGroup\b"#,
            why: "the model does not plan discarding task groups yet, only task groups whose children it can count"),
        UnseenConstruct(
            name: "task.value", pattern: #"\bawait\s+[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\.value\b"#,
            why: "a task that awaits another task's value waits for that task to end, which the model does not plan yet"
        ),
        UnseenConstruct(
            name: "an actor",
            pattern:
                #"^\s*((public|private|fileprivate|internal|package|final|nonisolated|distributed)\s+)*actor\s+[A-Za-z_]"#,
            why:
                "its methods run one at a time, and another caller waits its turn (each await lets the next one in), which the model does not plan yet",
            countsAnywhereInTheFile: true),
        UnseenConstruct(
            name: "group.addTask(name:)", pattern: #"\.addTask(UnlessCancelled)?\s*\(\s*name\s*:"#,
            why: unfollowedChild),
        UnseenConstruct(
            name: "executorPreference", pattern: #"\bexecutorPreference\s*:"#,
            why:
                "a task or child that prefers an executor of the code's own runs there, which the model does not plan yet"
        ),
        UnseenConstruct(
            name: "an immediate task",
            pattern: #"\bTask\s*\.\s*immediate(Detached)?\b|\baddImmediateTask(UnlessCancelled)?\b"#,
            why: "it starts on the caller's thread until its first suspension, which the model does not plan yet"),
        UnseenConstruct(
            name: "a clock's sleep",
            pattern: #"\b(?!(Task|Thread)\b)[A-Za-z_][A-Za-z0-9_]*(\(\))?\s*\.\s*sleep\s*\(\s*(for|until)\s*:"#,
            why: "a clock's own sleep is not scaled or recorded as Task.sleep is, which the model does not plan yet"),
        UnseenConstruct(
            name: "Task.sleep(_:)", pattern: #"\bTask\s*\.\s*sleep\s*\((?!\s*(nanoseconds|for|until)\s*:)"#,
            why: "the deprecated unlabelled Task.sleep is not scaled or recorded as Task.sleep(nanoseconds:) is"),
        UnseenConstruct(name: "RunLoop", pattern: #"\bRunLoop\b"#, why: "the model does not plan run loops yet"),
        UnseenConstruct(name: "Timer", pattern: #"\bTimer\s*(\(|\.)"#, why: "the model does not plan timers yet"),
        UnseenConstruct(
            name: "Thread", pattern: #"\bThread\s*(\(|\{)"#,
            why: "the plan holds the queues' threads only, not one of the code's own"),
    ]

    static let unfollowedChild =
        "a child added with a name is Swift's own, which the lab does not follow: the model does not plan it yet"

    /// Each construct of `text` with its 1-based line, in the order of the lines: an `async let`
    /// only where the text does not tell when its task's body waits for it (one the text
    /// places, the rehearsal plans from its child's calls), and a child added inside a
    /// `for await` loop.
    static func find(in text: String) -> [(construct: UnseenConstruct, line: Int)] {
        let expressions = all.compactMap { construct in
            (try? NSRegularExpression(pattern: construct.pattern)).map { (construct, $0) }
        }
        let matched = SwiftCodeLines.code(of: text).enumerated().flatMap { offset, line in
            expressions.filter { $0.1.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil }.map {
                ($0.0, offset + 1)
            }
        }
        let source = SwiftSource(text: text)
        let asyncLets = source.asyncLets().unplaced.map {
            (UnseenConstruct(name: "async let", pattern: "", why: $0.why), $0.line)
        }
        let addedInLoops = source.childrenAddedInAwaitingLoops().map {
            (UnseenConstruct(name: "group.addTask", pattern: "", why: childAddedInALoop), $0)
        }
        return (matched + asyncLets + addedInLoops).sorted { $0.1 < $1.1 }
    }

    static let childAddedInALoop =
        "a child added inside a for await loop over a group starts as the child the loop received ends, which no call the lab sees reports (the loop's iterator is Swift's own): the model does not plan it yet (a loop of group.next() it does)"
}
