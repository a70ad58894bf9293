import Foundation
import TestSupport
import Testing

/// `run-experiments --help`, whole: the first thing a learner reads, and generated from the
/// registry and the options; a change here is a change users see, so it is made on purpose.
@Suite(.serialized, .oneAtATime) struct HelpGoldenTests {
    @Test func helpIsTheGolden() throws {
        let help = try BuiltBinary.run(["--help"], timeout: 30)
        #expect(help.status == 0, "\(help.stderr)")
        #expect(try help.stdout == Golden.text("help", in: .module))
        #expect(help.stderr.isEmpty)
    }
}
