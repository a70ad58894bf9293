import ExperimentKit
import ExperimentModel
import Foundation
import TestSupport
import Testing

@testable import SwiftScanner

/// The scanner that finds, in an experiment's file, the lines of its `code:` or `run:` closure and
/// of the declaration a line is in: on files shaped like the project's own, on the literals and
/// comments that hide braces and parentheses, on broken text, and on every experiment's file.
@Suite(.serialized, .oneAtATime) struct SwiftSourceTests {
    // MARK: Files shaped like the project's

    /// An experiment as the project's files write one: a doc comment, a call with string
    /// arguments, a nested call (`ArticleClaim(`) holding a brace in a string, a `code:`
    /// closure and a `checks:` closure.
    static let experiment = #"""
        import ExperimentKit

        /// A queue of width two.
        let widthTwo = Experiment(
            name: "width-two",
            title: "Two at once",
            summary: "Closures print and sleep.",
            claim: ArticleClaim(
                quote: "Two { at once",
                seconds: 2
            ),
            code: { context in
                let queue = OperationQueue()
                queue.maxConcurrentOperationCount = 2
                queue.addOperation { print("a"); sleep(1) }
                queue.waitUntilAllOperationsAreFinished()
            },
            checks: { measurement, prediction in [] }
        )
        """#

    @Test func codeClosureOfAnExperiment() {
        let source = SwiftSource(text: Self.experiment)
        #expect(source.lines.count == 19)
        #expect(source.closureArgument("code", ofCallAt: 4) == 12...17)
        // From the doc comment above the `let`, the call is the one on the next line of code.
        #expect(source.closureArgument("code", ofCallAt: 3) == 12...17)
        #expect(source.closureArgument("checks", ofCallAt: 4) == 18...18)
        // `claim:` is a call, `run:` is not there, and line 8's call (`ArticleClaim(`) has neither.
        #expect(source.closureArgument("claim", ofCallAt: 4) == nil)
        #expect(source.closureArgument("run", ofCallAt: 4) == nil)
        #expect(source.closureArgument("code", ofCallAt: 8) == nil)
        // No line 0, none before it, none after the last.
        #expect(source.closureArgument("code", ofCallAt: 0) == nil)
        #expect(source.closureArgument("code", ofCallAt: -3) == nil)
        #expect(source.closureArgument("code", ofCallAt: 20) == nil)
        // Top level: the experiment is a `let` whose value is a call, not a closure.
        #expect(source.enclosingDeclaration(of: 14) == nil)
    }

    /// An experiment written as the article's page: the short call, its code as the trailing
    /// closure, the rest as modifiers after it (one holding a closure of its own).
    static let page = #"""
        import ExperimentKit

        // Article 000, Experiment 1.
        let widthTwo = Experiment("width-two", article: "000.txt", section: "{ 1") { context in
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 2
            queue.addOperation { print("a"); sleep(1) }
            queue.waitUntilAllOperationsAreFinished()
        }
        .claim("Two { at once", seconds: 2)
        .checks { measurement, prediction in [] }
        let noCode = Experiment(name: "x")
        let long = Experiment(
            "a-long-name", article: "000.txt",
            section: "a long section"
        ) { _ in
            print("a")
        }
        """#

    @Test func trailingClosureOfAnExperimentPage() {
        let source = SwiftSource(text: Self.page)
        #expect(source.unlabelledTrailingClosure(ofCallAt: 4) == 4...9)
        // From the comment above the `let`, the call is the one on the next line of code.
        #expect(source.unlabelledTrailingClosure(ofCallAt: 3) == 4...9)
        // A modifier's closure is no trailing closure of the experiment's call, and a call without one has none.
        #expect(source.closureArgument("checks", ofCallAt: 4) == nil)
        #expect(source.unlabelledTrailingClosure(ofCallAt: 12) == nil)
        #expect(source.unlabelledTrailingClosure(ofCallAt: 30) == nil)
        // A call whose arguments take lines of their own: its code is listed from the call's first line.
        #expect(source.unlabelledTrailingClosure(ofCallAt: 13) == 13...18)
    }

    /// An enum of helpers: a static constant, and static functions with doc comments and
    /// labelled parameters of function type.
    static let helpers = #"""
        import ExperimentKit

        /// Words printed by closures.
        enum Printer {
            static let words = ["a", "b"]

            /// Adds one closure per word.
            static func addClosures(with addOperation: (@escaping @Sendable () -> Void) -> Void) {
                addOperation { print("a"); sleep(2) }
                addOperation { print("b"); sleep(2) }
            }

            static func parameters(width: Int?, withConcatenation: Bool) -> [Int] {
                [width ?? 0]
                    + (withConcatenation ? [1] : [])
            }
        }
        """#

    @Test func staticFunctionOfAnEnum() {
        let source = SwiftSource(text: Self.helpers)
        let addClosures = SwiftSource.Declaration(name: "Printer.addClosures(with:)", lines: 8...11)
        #expect(source.enclosingDeclaration(of: 9) == addClosures)
        #expect(source.enclosingDeclaration(of: 8) == addClosures)
        #expect(source.enclosingDeclaration(of: 11) == addClosures)
        #expect(source.enclosingDeclaration(of: 14)?.name == "Printer.parameters(width:withConcatenation:)")
        #expect(source.enclosingDeclaration(of: 14)?.lines == 13...16)
        // The doc comment, the enum's own body, the file's top level.
        #expect(source.enclosingDeclaration(of: 7) == nil)
        #expect(source.enclosingDeclaration(of: 5) == nil)
        #expect(source.enclosingDeclaration(of: 12) == nil)
        #expect(source.enclosingDeclaration(of: 1) == nil)
    }

    /// A file of operation code: a top-level function with a trailing closure, an enum's static
    /// functions beside a static constant, and a class's initialiser, computed property and
    /// override.
    static let operationCode = #"""
        import Foundation

        /// Adds slowly.
        func slowSum(_ pair: (Int, Int), delay: Double = 1) -> Int {
            Thread.sleep(forTimeInterval: delay)
            let total = [pair.0, pair.1].reduce(0) { partial, next in
                partial + next
            }
            return total
        }

        enum Pairs {
            static func first(_ count: Int) -> [(Int, Int)] {
                (0..<count).map { ($0, $0 * 3) }
            }

            static let five = first(5)

            /// `1 + 5`, as a timeline labels a sum.
            static func label(_ pair: (Int, Int)) -> String {
                "\(pair.0) + \(pair.1) = {"
            }
        }

        /// An operation that sums one pair.
        final class PairSum: Operation, @unchecked Sendable {
            let pair: (Int, Int)
            private var stored: Int?

            init(pair: (Int, Int)) {
                self.pair = pair
                super.init()
                name = Pairs.label(pair)
            }

            /// The sum, once finished.
            var sum: Int? {
                stored
            }

            override func main() {
                DispatchQueue.global().sync {
                    stored = slowSum(pair)
                }
            }
        }
        """#

    @Test func functionsInitialiserAndComputedProperty() {
        let source = SwiftSource(text: Self.operationCode)
        #expect(source.enclosingDeclaration(of: 6) == .init(name: "slowSum(_:delay:)", lines: 4...10))
        #expect(source.enclosingDeclaration(of: 14) == .init(name: "Pairs.first(_:)", lines: 13...15))
        #expect(source.enclosingDeclaration(of: 17) == nil)
        #expect(source.enclosingDeclaration(of: 21) == .init(name: "Pairs.label(_:)", lines: 20...22))
        #expect(source.enclosingDeclaration(of: 32) == .init(name: "PairSum.init(pair:)", lines: 30...34))
        #expect(source.enclosingDeclaration(of: 38) == .init(name: "PairSum.sum", lines: 37...39))
        #expect(source.enclosingDeclaration(of: 43) == .init(name: "PairSum.main()", lines: 41...45))
        #expect(source.enclosingDeclaration(of: 27) == nil)
    }

    /// An experiment that passes `run:` (and a `workload:` closure before it), as the
    /// Swift-concurrency counterparts do.
    static let counterpart = #"""
        import ExperimentKit

        /// Sums as child tasks: the counterpart
        /// of the operation experiment.
        let sumsAsync = Experiment(
            name: "sums-async",
            summary: "Each child \"task\" sleeps, then adds.",
            workload: {
                var workload = Workload()
                workload.add(PlannedOperation(label: "1 + 5", articleSeconds: 1, executor: .globalQueue(.default), work: .timer))
                return workload
            },
            run: { context, workload in
                let total = try AwaitFromRun.wait {
                    try await withThrowingTaskGroup(of: Int.self) { group in
                        group.addTask { 6 }
                        var sum = 0
                        for try await value in group { sum += value }
                        return sum
                    }
                }
                return Outcome([Outcome.Field("sum", .number(Double(total)))])
            },
            checks: { measurement, prediction in
                []
            }
        )
        """#

    @Test func runClosureOfASwiftConcurrencyCounterpart() {
        let source = SwiftSource(text: Self.counterpart)
        #expect(source.closureArgument("run", ofCallAt: 5) == 13...23)
        #expect(source.closureArgument("workload", ofCallAt: 5) == 8...12)
        #expect(source.closureArgument("checks", ofCallAt: 5) == 24...26)
        #expect(source.closureArgument("code", ofCallAt: 5) == nil)
        // The `var` and `let` inside the closure hold no closure: no declaration here.
        #expect(source.enclosingDeclaration(of: 17) == nil)
    }

    /// `Experiments/002-PreModernConcurrencyRecap/CompletionBlockHandOff.swift`, shortened: closures assigned
    /// to properties inside the `code:` closure, an escaped quote, a URL with `//`.
    static let completionBlockHandOff = #"""
        let completionBlockHandOff = Experiment(
            name: "completion-block-hand-off",
            articleCorrections: [
                ArticleCorrection(
                    quote: "let inputImage: UIImage",
                    here: "a second didChangeValue(forKey: \"isFinished\") returns early"
                ),
            ],
            code: { context in
                let operationQueue = OperationQueue()
                operationQueue.maxConcurrentOperationCount = 2 // Limit concurrent downloads {
                let imageUrls = [
                    URL(string: "https://example.com/image1.jpg")!,
                ]
                for imageUrl in imageUrls {
                    let processingOperation = Article002.ImageProcessingOperation(inputImage: Article002.UIImage())
                    processingOperation.completionBlock = {
                        if let processedImage = processingOperation.outputImage {
                            main.async {
                                processedImages.withLock { $0.append(processedImage) }
                            }
                        }
                    }
                }
            },
            checks: { _, _ in [] }
        )
        """#

    @Test func codeClosureWithClosuresAssignedInside() {
        let source = SwiftSource(text: Self.completionBlockHandOff)
        #expect(source.closureArgument("code", ofCallAt: 1) == 9...25)
        #expect(source.closureArgument("checks", ofCallAt: 1) == 26...26)
        // `here:` is an argument of the nested ArticleCorrection call, not of Experiment.
        #expect(source.closureArgument("here", ofCallAt: 1) == nil)
        #expect(source.enclosingDeclaration(of: 20) == nil)
    }

    // MARK: What hides a brace or a parenthesis

    @Test func interpolationHoldingStringsWithBraces() {
        let source = SwiftSource(
            text: #"""
                run(code: {
                    print("\(items.map { "}" + $0 + ")" }.joined(separator: "\(")")")) }")
                    print("\("nested \("deeper ) }")")")
                }, after: 1)
                """#)
        #expect(source.closureArgument("code", ofCallAt: 1) == 1...4)
    }

    @Test func rawStrings() {
        let source = SwiftSource(
            text: ###"""
                call(code: {
                    let a = #"a "quoted" } \(not interpolated ) "#
                    let b = #"\#(value.map { "}" }) } "#
                    let c = ##"a "# is not the end } ) "##
                    let d = #"""
                        } a raw multi-line string, with """ inside }
                        """#
                })
                """###)
        #expect(source.closureArgument("code", ofCallAt: 1) == 1...8)
    }

    @Test func multiLineStrings() {
        let source = SwiftSource(
            text: ##"""
                call(code: {
                    let text = """
                        } ) "quoted" \"""
                        \(values.map { ")" }) and a continued \
                        line }
                        """
                }, next: 1)
                func after() {}
                """##)
        #expect(source.closureArgument("code", ofCallAt: 1) == 1...7)
        #expect(source.enclosingDeclaration(of: 8)?.name == "after()")
    }

    @Test func comments() {
        let source = SwiftSource(
            text: """
                call(code: {
                    // a line comment } with a brace
                    /* a block comment } with /* a nested one { */ still } a comment */
                    work() /* } */ // )
                }) // }
                """)
        #expect(source.closureArgument("code", ofCallAt: 1) == 1...5)
    }

    @Test func extendedRegexLiteral() {
        let source = SwiftSource(
            text: """
                call(code: {
                    let pattern = #/ \\} ( [{]+ /#
                })
                """)
        #expect(source.closureArgument("code", ofCallAt: 1) == 1...3)
    }

    // MARK: Which call's argument

    @Test func nestedCallsLabelDoesNotCount() {
        let source = SwiftSource(
            text: """
                let experiment = Experiment(
                    setup: Helper(code: { nested() }),
                    helper: { Helper(code: { alsoNested() }) },
                    code: {
                        outer()
                    }
                )
                let other = Experiment(setup: Helper(code: { nested() }))
                """)
        #expect(source.closureArgument("code", ofCallAt: 1) == 4...6)
        #expect(source.closureArgument("code", ofCallAt: 2) == 2...2)
        #expect(source.closureArgument("code", ofCallAt: 8) == nil)
    }

    @Test func labelledTrailingClosures() {
        let source = SwiftSource(
            text: """
                let experiment = Experiment(name: "x") {
                    plan()
                } run: { context in
                    work()
                } checks: { _, _ in [] }
                Task { await work(run: { }) }
                """)
        #expect(source.closureArgument("run", ofCallAt: 1) == 3...5)
        #expect(source.closureArgument("checks", ofCallAt: 1) == 5...5)
        #expect(source.closureArgument("run", ofCallAt: 6) == nil)
    }

    // MARK: Declarations

    @Test func nestedFunctionsTypesAndClosureProperties() {
        let source = SwiftSource(
            text: """
                struct Outer {
                    struct Inner {
                        func run(_ count: Int, from start: Int) {
                            func step(at index: Int) {
                                print(index)
                            }
                            let finish = {
                                print("done")
                            }
                        }
                    }
                }
                """)
        #expect(source.enclosingDeclaration(of: 5) == .init(name: "Outer.Inner.run(_:from:).step(at:)", lines: 4...6))
        #expect(source.enclosingDeclaration(of: 8) == .init(name: "Outer.Inner.run(_:from:).finish", lines: 7...9))
        #expect(source.enclosingDeclaration(of: 10) == .init(name: "Outer.Inner.run(_:from:)", lines: 3...10))
        #expect(source.enclosingDeclaration(of: 11) == nil)
    }

    @Test func extensionsAndTheirMembers() {
        let source = SwiftSource(
            text: """
                extension Outer.Inner where Value: Sendable {
                    /// Doc.
                    @available(*, deprecated, message: "use other()")
                    @MainActor
                    public private(set) var cached: [String: Int] {
                        get { [:] }
                        set { store(newValue) }
                    }

                    subscript(index: Int, default fallback: Int) -> Int {
                        index
                    }

                    static func == (lhs: Self, rhs: Self) -> Bool { true }

                    init?<T: Collection>(from values: T, _ extra: Int = max(1, 2)) where T.Element == Int {
                        nil
                    }

                    class func make() -> Self { fatalError() }

                    deinit {
                        close()
                    }
                }
                """)
        #expect(source.enclosingDeclaration(of: 6) == .init(name: "Outer.Inner.cached", lines: 3...8))
        #expect(source.enclosingDeclaration(of: 2) == nil)
        #expect(source.enclosingDeclaration(of: 11) == .init(name: "Outer.Inner.subscript(_:default:)", lines: 10...12))
        #expect(source.enclosingDeclaration(of: 14)?.name == "Outer.Inner.==(_:_:)")
        #expect(source.enclosingDeclaration(of: 17) == .init(name: "Outer.Inner.init(from:_:)", lines: 16...18))
        #expect(source.enclosingDeclaration(of: 20)?.name == "Outer.Inner.make()")
        #expect(source.enclosingDeclaration(of: 23) == .init(name: "Outer.Inner.deinit", lines: 22...24))
    }

    @Test func bodilessDeclarationsAndBindingsAreNone() {
        let source = SwiftSource(
            text: """
                protocol Provider {
                    func cancel()
                    var state: State { get }
                }
                actor ImageProvider {
                    var count = 0 {
                        didSet { report() }
                    }
                    var handler: (() -> Void)?
                    func cancel() {
                        if let handler {
                            handler()
                        }
                        guard var value = compute() else { return }
                        let doubled = value.map { $0 * 2 }
                    }
                }
                """)
        #expect(source.enclosingDeclaration(of: 2) == nil)
        #expect(source.enclosingDeclaration(of: 3) == .init(name: "Provider.state", lines: 3...3))
        #expect(source.enclosingDeclaration(of: 7) == .init(name: "ImageProvider.count", lines: 6...8))
        #expect(source.enclosingDeclaration(of: 9) == nil)
        #expect(source.enclosingDeclaration(of: 12) == .init(name: "ImageProvider.cancel()", lines: 10...16))
        #expect(source.enclosingDeclaration(of: 15) == .init(name: "ImageProvider.cancel()", lines: 10...16))
    }

    // MARK: Broken and odd text

    @Test func linesAndLineBreaks() {
        #expect(SwiftSource(text: "").lines == [])
        #expect(SwiftSource(text: "\n").lines == [""])
        #expect(SwiftSource(text: "a\r\nb\rc\n\nd").lines == ["a", "b", "c", "", "d"])
        let crlf = SwiftSource(text: "struct A {\r\n    func f() {\r\n        g()\r\n    }\r\n}\r\n")
        #expect(crlf.enclosingDeclaration(of: 3) == .init(name: "A.f()", lines: 2...4))
    }

    @Test func brokenTextGivesAnAnswerOrNil() {
        let empty = SwiftSource(text: "")
        #expect(empty.closureArgument("code", ofCallAt: 1) == nil)
        #expect(empty.enclosingDeclaration(of: 1) == nil)
        // The string is unterminated on its line; the next lines are code again.
        let unterminated = SwiftSource(text: "let s = \"abc \\(x\nfunc f() {\n    g()\n}\ncall(code: {")
        #expect(unterminated.enclosingDeclaration(of: 3) == .init(name: "f()", lines: 2...4))
        #expect(unterminated.closureArgument("code", ofCallAt: 5) == nil)
        // A type whose `}` is missing runs to the end; its members still pair.
        let unclosed = SwiftSource(text: "enum E {\n    func f() {\n        g(\n    }\n\n")
        #expect(unclosed.enclosingDeclaration(of: 3) == .init(name: "E.f()", lines: 2...4))
        let open = SwiftSource(text: "func f() {\n    g()\n")
        #expect(open.enclosingDeclaration(of: 2) == .init(name: "f()", lines: 1...2))
        for text in [
            "}}}", ")(", "/* never closed {", "\"\"\"\n{", "#", "`", "##\"", "#/ {", "func", "let x: Int", "call(code:",
            "@",
        ] {
            let source = SwiftSource(text: text)
            #expect(source.closureArgument("code", ofCallAt: 1) == nil)
            #expect(source.enclosingDeclaration(of: 1) == nil)
        }
    }

    @Test func randomTextNeverCrashes() {
        let pieces = [
            "{", "}", "(", ")", "[", "]", "\"", "\"\"\"", "#", "\\(", "\\#(", "/*", "*/", "//", "\n", "\r", " ", "`",
            "code", ":", ",", "=", "func", "init", "var", "let", "class", "extension", "@", "f", ".", "<", ">", "?",
            "é",
        ]
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<2000 {
            let count = Int.random(in: 0...40, using: &generator)
            let text = (0..<count).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &generator)] }.joined()
            let source = SwiftSource(text: text)
            for line in 0...(source.lines.count + 1) {
                if let range = source.closureArgument("code", ofCallAt: line) {
                    #expect(range.lowerBound >= 1 && range.upperBound <= source.lines.count)
                }
                if let declaration = source.enclosingDeclaration(of: line) {
                    #expect(declaration.lines.contains(line) && declaration.lines.upperBound <= source.lines.count)
                }
            }
        }
    }

    @Test func scanningIsLinearInTheText() {
        let block = Self.operationCode + "\n" + Self.experiment + "\n"
        let thousandLines = String(repeating: block, count: 1000 / block.split(separator: "\n").count + 1)
        let clock = ContinuousClock()
        var source = SwiftSource(text: "")
        let elapsed = clock.measure { source = SwiftSource(text: thousandLines) }
        #expect(source.lines.count >= 1000)
        #expect(elapsed < .milliseconds(50), "a thousand lines took \(elapsed)")
        // Thousands of unclosed brackets of one kind and closers of another: no quadratic pairing.
        let brackets = String(repeating: "(", count: 50_000) + String(repeating: "]", count: 50_000)
        #expect(clock.measure { _ = SwiftSource(text: brackets) } < .seconds(1))
        // Thousands of functions, each in the one before and none closed: names are made when
        // asked for, not for every scope.
        let nested = String(repeating: "func f() {\n", count: 20_000)
        var deep = SwiftSource(text: "")
        #expect(clock.measure { deep = SwiftSource(text: nested) } < .seconds(1))
        #expect(deep.enclosingDeclaration(of: 2)?.name == "f().f()")
        #expect(deep.enclosingDeclaration(of: 2)?.lines == 2...20_000)
    }

    // MARK: Every experiment

    /// The package's `Experiments/` folder, found from this file's path; nil when it is not there
    /// (the tests built from a copy without it).
    static let experimentsFolder: URL? = {
        let folder = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Experiments")
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) && isDirectory.boolValue
            ? folder : nil
    }()

    /// Every `Experiment(` call in the experiments' files (`let name = Experiment(`, those made
    /// in a function, and the article's page, `let name = Experiment("name", …) { context in`):
    /// its `code:` or `run:` closure, or its trailing closure, is found, its last line holds the
    /// `}`, and its text, read alone, is one balanced closure. An experiment that passes a
    /// function by name or a call's result (`run: Lesson.run`) has no
    /// closure to find; its argument must then read so.
    @Test(
        .enabled(
            if: SwiftSourceTests.experimentsFolder != nil, "no Experiments/ folder two levels above this test's file"))
    func everyExperimentsClosure() throws {
        let folder = try #require(Self.experimentsFolder)
        var closures = 0
        for file in Self.swiftFiles(in: folder) {
            let source = SwiftSource(text: try String(contentsOf: file, encoding: .utf8))
            for callLine in Self.experimentCallLines(source.lines) {
                let place = "\(file.lastPathComponent):\(callLine)"
                if let range = source.unlabelledTrailingClosure(ofCallAt: callLine) {
                    closures += 1
                    let closureLines = Array(source.lines[(range.lowerBound - 1)..<range.upperBound])
                    #expect(
                        closureLines.last?.trimmingCharacters(in: .whitespaces) == "}",
                        "\(place): \(range) does not end with a }")
                    let alone = SwiftSource(text: closureLines.joined(separator: "\n"))
                    #expect(
                        alone.unlabelledTrailingClosure(ofCallAt: 1) == 1...closureLines.count,
                        "\(place): \(range) is not balanced")
                    continue
                }
                guard
                    let range = source.closureArgument("code", ofCallAt: callLine)
                        ?? source.closureArgument("run", ofCallAt: callLine)
                else {
                    #expect(Self.passesFunctionByName(source, callLine: callLine), "\(place): no code: or run: closure")
                    continue
                }
                closures += 1
                let closureLines = Array(source.lines[(range.lowerBound - 1)..<range.upperBound])
                #expect(closureLines.last?.contains("}") == true, "\(place): \(range) does not end with a }")
                let label = source.closureArgument("code", ofCallAt: callLine) == nil ? "run" : "code"
                let alone = SwiftSource(text: "call(\n" + closureLines.joined(separator: "\n") + "\n)")
                #expect(
                    alone.closureArgument(label, ofCallAt: 1) == 2...(closureLines.count + 1),
                    "\(place): \(range) is not balanced")
            }
        }
        // More than forty experiments pass a closure: far fewer would mean calls went unread.
        #expect(closures >= 40)
    }

    static func swiftFiles(in folder: URL) -> [URL] {
        let files =
            FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? []
        return files.filter { $0.pathExtension == "swift" }.sorted { $0.path < $1.path }
    }

    /// Lines that end in a call of `Experiment(`: `let name = Experiment(`, `return Experiment(`,
    /// or make one as the article's page does, `let name = Experiment("name", …) {` (or `return …`).
    static func experimentCallLines(_ lines: [String]) -> [Int] {
        lines.indices.filter { index in
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("let ") || line.hasPrefix("return "), line.contains("Experiment(\""),
                line.hasSuffix(" in") || line.hasSuffix("{")
            {
                return true
            }
            guard line.hasSuffix("Experiment(") else { return false }
            let before = line.dropLast("Experiment(".count).last
            return before.map { !($0.isLetter || $0.isNumber || $0 == "_") } ?? true
        }.map { $0 + 1 }
    }

    /// Whether, in the parentheses of the call on `callLine`, an argument reads `code: ` or `run: `
    /// followed by something other than a `{`, on a line of its own or after other arguments.
    static func passesFunctionByName(_ source: SwiftSource, callLine: Int) -> Bool {
        guard let open = source.callOpening(onLine: callLine), let close = source.partners[open] else { return false }
        let arguments = source.lines[(source.tokens[open].line - 1)..<source.tokens[close].line].joined(separator: " ")
        return arguments.contains(#/(^|[(,])\s*(code|run): *[^{\s]/#)
    }
}
