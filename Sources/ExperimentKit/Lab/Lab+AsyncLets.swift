// The `async let`s of a learner's planned task: each child a chain of steps on the cooperative pool.

import ExperimentModel
import Foundation
import SwiftScanner
import Synchronization

/// Rehearsal: the children a task's body starts with `async let`. A child inherits the body's
/// task-local values, so its calls find the body's work; its task is another, which tells it
/// apart: each child found records a work of its own, with the stack of its first call, which
/// shows the line of the `async let` that started it.
///
/// `@unchecked Sendable`: `body` is a constant, an identity compared, never used to reach the
/// task; `recorded` is read and written only while `lock` is held.
final class AsyncLetChildren: @unchecked Sendable {
    private let lock = NSLock()
    private let body: UnsafeCurrentTask?
    private var recorded: [(task: UnsafeCurrentTask, work: RecordedWork, stack: CallSite.Stack?)] = []

    /// Made in the task whose body it follows.
    init() {
        body = withUnsafeCurrentTask(body: { $0 })
    }

    /// The work of the child whose task runs here; nil in the body's own task, or outside any.
    func workHere() -> RecordedWork? {
        guard let body, let here = withUnsafeCurrentTask(body: { $0 }), here != body else { return nil }
        return lock.withLock {
            if let known = recorded.first(where: { $0.task == here }) { return known.work }
            let work = RecordedWork(isATasks: true)
            recorded.append((here, work, CallSite.Stack.capture()))
            return work
        }
    }

    /// Whether a child, not the body, runs here.
    var runsInAChild: Bool {
        guard let body, let here = withUnsafeCurrentTask(body: { $0 }) else { return false }
        return here != body
    }

    /// Each child found, in the order its first call came, with that call's stack.
    var children: [(work: RecordedWork, stack: CallSite.Stack?)] {
        lock.withLock { recorded.map { ($0.work, $0.stack) } }
    }
}

/// The `async let`s of the experiments' files, read from each file once.
enum AsyncLetSources {
    private static let read = Mutex<[String: (bodies: [SwiftSource.AsyncLetBody], unplaced: Bool)]>([:])

    /// The task bodies of the file at `path` whose `async let`s the text places, and whether it
    /// has any it does not place (which ``Experiment/unseenConstructs`` names at their lines).
    static func asyncLets(in path: String) -> (bodies: [SwiftSource.AsyncLetBody], unplaced: Bool) {
        read.withLock { known in
            if let found = known[path] { return found }
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            let asyncLets = SwiftSource(text: text).asyncLets()
            known[path] = (asyncLets.bodies, !asyncLets.unplaced.isEmpty)
            return (asyncLets.bodies, !asyncLets.unplaced.isEmpty)
        }
    }
}

/// Where a task's body waits beside its `async let`s: the body the text reads, each
/// declaration's child (nil: none was found, its child made no call the lab follows), the
/// line and frame each was found by (nil: by order, the children being alike), and the line
/// of each of the body's own waits.
struct AsyncLetPlacement {
    var body: SwiftSource.AsyncLetBody
    var children: [RecordedWork?]
    var sites: [(line: String?, frame: UInt64)?]
    var waitLines: [Int]
}

/// Why a body's `async let`s are not planned, and the line to name; nil `why` when the file's
/// text names them already, at their lines.
struct UnplacedAsyncLets: Error {
    var why: String?
    var site: String?
}

extension Lab {
    /// Rehearsal: places the `async let` children of a task's body beside its own waits, or
    /// says why the calls and the text cannot place them exactly. The body is the one the
    /// stack of the task's start (`startedAt`), of a child's first call or of a wait shows.
    static func placeAsyncLets(
        of work: RecordedWork, children: [(work: RecordedWork, stack: CallSite.Stack?)], startedAt: CallSite.Stack?
    ) -> Result<AsyncLetPlacement, UnplacedAsyncLets> {
        let framesOfChildren = children.map { $0.stack?.experimentFramesInFiles ?? [] }
        let framesOfWaits = work.waits.map { $0.stack?.experimentFramesInFiles ?? [] }
        let framesOfEvents = work.synchronisingStacksOfABody.map { $0?.experimentFramesInFiles ?? [] }
        let candidates = [startedAt?.experimentFramesInFiles ?? []] + framesOfChildren + framesOfWaits
        guard
            let (file, body) = candidates.lazy.compactMap({ frames in
                frames.lazy.compactMap { frame in
                    AsyncLetSources.asyncLets(in: frame.file).bodies.first { $0.lines.contains(frame.line) }.map {
                        (frame.file, $0)
                    }
                }.first
            }).first
        else {
            let namedByTheText = candidates.joined().contains { AsyncLetSources.asyncLets(in: $0.file).unplaced }
            return .failure(UnplacedAsyncLets(why: namedByTheText ? nil : unplacedChildren, site: nil))
        }
        let site = { (line: Int) in SourceLine(experimentFile: file, line: line)?.named }
        return placeChildren(children.map(\.work), framesOfChildren, in: body, file: file, site: site).flatMap {
            placed, sites in
            placeWaits(framesOfWaits, in: body, file: file, site: site).flatMap { waitLines in
                if let unawaited = cancelledAtTheEnd(body, placed) {
                    return .failure(UnplacedAsyncLets(why: cancelledAtTheEnd, site: site(unawaited)))
                }
                if let early = eventBeforeItsChildren(framesOfEvents, body, placed, file: file) {
                    return .failure(UnplacedAsyncLets(why: eventBeforeItsChildren, site: site(early)))
                }
                return .success(AsyncLetPlacement(body: body, children: placed, sites: sites, waitLines: waitLines))
            }
        }
    }

    /// Each declaration's child: found by the line of its `async let` on the stack of its first
    /// call, with that line; the others in the order they came, where all the children wait
    /// alike (which is which does not matter then).
    private static func placeChildren(
        _ children: [RecordedWork], _ framesOfChildren: [[(file: String, line: Int, address: UInt64)]],
        in body: SwiftSource.AsyncLetBody, file: String, site: (Int) -> String?
    ) -> Result<([RecordedWork?], [(line: String?, frame: UInt64)?]), UnplacedAsyncLets> {
        var placed = [RecordedWork?](repeating: nil, count: body.declarations.count)
        var sites = [(line: String?, frame: UInt64)?](repeating: nil, count: body.declarations.count)
        var byOrder: [RecordedWork] = []
        for (child, frames) in zip(children, framesOfChildren) {
            let found = body.declarations.indices.lazy.compactMap { index in
                placed[index] == nil
                    ? frames.first { $0.file == file && $0.line == body.declarations[index].line }.map { (index, $0) }
                    : nil
            }.first
            guard let (declaration, frame) = found else {
                byOrder.append(child)
                continue
            }
            placed[declaration] = child
            sites[declaration] = (site(frame.line), frame.address)
        }
        let free = placed.indices.filter { placed[$0] == nil }
        guard byOrder.count <= free.count else { return .failure(UnplacedAsyncLets(why: moreChildren, site: nil)) }
        guard let first = children.first, children.allSatisfy({ alike($0, first) }) || byOrder.isEmpty else {
            return .failure(UnplacedAsyncLets(why: unplacedChildren, site: site(body.declarations[free[0]].line)))
        }
        for (declaration, child) in zip(free, byOrder) { placed[declaration] = child }
        return .success((placed, sites))
    }

    /// The line of a signal or leave of the body before it has awaited every child that waits
    /// (one it never uses, its end awaits): the plan has it at the body's last step, after them.
    private static func eventBeforeItsChildren(
        _ framesOfEvents: [[(file: String, line: Int, address: UInt64)]], _ body: SwiftSource.AsyncLetBody,
        _ children: [RecordedWork?],
        file: String
    ) -> Int? {
        let lastAwait = zip(body.declarations, children).filter { $0.1.map { $0.waitCount > 0 } ?? false }
            .map { $0.0.awaitedAt ?? .max }.max()
        guard let lastAwait else { return nil }
        for frames in framesOfEvents {
            let line = frames.last { $0.file == file && body.lines.contains($0.line) }?.line
            guard let line, line > lastAwait else { return line ?? frames.first?.line ?? body.lines.lowerBound }
        }
        return nil
    }

    /// The line of each of the body's own waits: its outermost frame in the body. A wait on the
    /// line of an `async let` or of its first use is before or after it, which no line tells.
    private static func placeWaits(
        _ framesOfWaits: [[(file: String, line: Int, address: UInt64)]], in body: SwiftSource.AsyncLetBody,
        file: String,
        site: (Int) -> String?
    ) -> Result<[Int], UnplacedAsyncLets> {
        let marks = Set(body.declarations.flatMap { [$0.line] + ($0.awaitedAt.map { [$0] } ?? []) })
        var lines: [Int] = []
        for frames in framesOfWaits {
            guard let line = frames.last(where: { $0.file == file && body.lines.contains($0.line) })?.line else {
                return .failure(UnplacedAsyncLets(why: unplacedWait, site: frames.first.flatMap { site($0.line) }))
            }
            if marks.contains(line) { return .failure(UnplacedAsyncLets(why: waitOnAMarkedLine, site: site(line))) }
            lines.append(line)
        }
        return .success(lines)
    }

    /// The line of an `async let` the body never uses whose child suspends or looks at its
    /// cancel: the body's end cancels it, which ends its `Task.sleep` at once.
    private static func cancelledAtTheEnd(_ body: SwiftSource.AsyncLetBody, _ children: [RecordedWork?]) -> Int? {
        zip(body.declarations, children).first { declaration, child in
            guard declaration.awaitedAt == nil, let child else { return false }
            return child.suspends || child.checksCancellation || child.loopsUntilCancelled
        }?.0.line
    }

    /// Whether two children wait alike: the same sleeps and suspensions, in the same order.
    private static func alike(_ one: RecordedWork, _ other: RecordedWork) -> Bool {
        one.waits.map { [$0.holdsAThread ? 1 : 0, $0.articleSeconds] }
            == other.waits.map { [$0.holdsAThread ? 1 : 0, $0.articleSeconds] }
    }

    static let unplacedChildren =
        "its children's calls do not show which async let started each, and they wait differently: the model cannot tell them apart"
    static let moreChildren =
        "the task's body runs more children than it declares async lets (a task Swift starts without the lab), which the model does not plan yet"
    static let unplacedWait =
        "a wait of the task's body that no line of its body shows, which the model cannot place beside its async lets"
    static let waitOnAMarkedLine =
        "a wait on the line of an async let or of its first use, which the line alone does not place before or after it"
    static let eventBeforeItsChildren =
        "it signals or leaves before the task's body has awaited its async lets (or, for one it never uses, before the body's end awaits it), at an instant the plan does not have"
    static let cancelledAtTheEnd =
        "never awaited, its child is cancelled as the body ends, which ends a Task.sleep at once and answers a look at Task.isCancelled: the model does not plan that cancel yet"
}
