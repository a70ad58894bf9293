import TestSupport
import Testing

@testable import SwiftScanner

/// A file's lines without comments and strings, as the lab searches them for constructs: a word
/// in a comment or a string is gone, the code around it stays, and the line count is the file's.
@Suite(.serialized, .oneAtATime) struct SwiftCodeLinesTests {
    @Test func commentsAndStringsAreLeftOutAndCodeKept() {
        let text = """
            let task = Task { } // Task in a comment
            print("Task { in a string }"); Thread.sleep(forTimeInterval: 1)
            /* a Task {
               over two lines */ let timer = 1
            let text = \"\"\"
                Task { in a multi-line string
                \"\"\"
            print("a \\"quoted\\" Task {")
            """
        #expect(
            SwiftCodeLines.code(of: text) == [
                "let task = Task { } ",
                "print(); Thread.sleep(forTimeInterval: 1)",
                "",
                " let timer = 1",
                "let text = ",
                "",
                "",
                "print()",
            ])
    }

    @Test func anUnclosedCommentOrStringEndsWhereTheTextDoes() {
        #expect(SwiftCodeLines.code(of: "a /* b\nc") == ["a ", ""])
        #expect(SwiftCodeLines.code(of: "a \"b\nc") == ["a ", "c"])
        #expect(SwiftCodeLines.code(of: "") == [""])
    }
}
