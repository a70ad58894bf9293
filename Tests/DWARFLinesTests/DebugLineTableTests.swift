import Foundation
import TestSupport
import Testing

@testable import DWARFLines

/// The debug line table read from ELF files: the DWARF forms the toolchain's clang writes, and
/// files it cannot read, which give no line rather than a wrong one or a trap.
@Suite(.serialized, .oneAtATime) struct DebugLineTableTests {
    static let clang = "/opt/swift/usr/bin/clang"
    static var hasClang: Bool { FileManager.default.isExecutableFile(atPath: clang) }

    /// A shared library built from three lines of C with `flags`; its table keeping `x.c` only.
    static func table(_ flags: [String]) throws -> DebugLineTable {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lines-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "int add(int a, int b) {\n  return a + b;\n}\n".write(
            to: folder.appendingPathComponent("x.c"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: clang)
        process.arguments =
            flags + [
                "-O0", "-shared", "-fPIC", "-o", folder.appendingPathComponent("x.so").path,
                folder.appendingPathComponent("x.c").path,
            ]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        return DebugLineTable(elfFile: folder.appendingPathComponent("x.so").path, keeping: { $0.hasSuffix("/x.c") })
    }

    /// The lines of x.c some instruction in the first pages belongs to.
    static func lines(in table: DebugLineTable) -> Set<Int> {
        Set((0..<0x4000).compactMap { table.location(of: UInt64($0))?.line })
    }

    @Test(
        .enabled(if: hasClang, "the toolchain's clang is not at /opt/swift/usr/bin"),
        arguments: [["-gdwarf-4"], ["-gdwarf-5"], ["-gdwarf-5", "-gdwarf64"]])
    func everyDwarfFormReadsTheFunctionsLines(flags: [String]) throws {
        let lines = Self.lines(in: try Self.table(flags))
        #expect(lines.isSuperset(of: [1, 2]) && lines.isSubset(of: [0, 1, 2, 3]), "\(flags): \(lines.sorted())")
    }

    @Test func filesItCannotReadGiveNoLines() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lines-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var generator = SystemRandomNumberGenerator()
        let executable = try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[0]))
        let files: [(String, Data)] = [
            ("empty", Data()),
            ("noise", Data((0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) })),
            ("elf header only", Data([0x7f, 0x45, 0x4c, 0x46, 2, 1] + [UInt8](repeating: 0, count: 58))),
            // Its section headers, at the end, are gone: no section can be found.
            ("a cut executable", executable.prefix(executable.count / 3)),
        ]
        for (name, data) in files {
            let file = folder.appendingPathComponent(name)
            try data.write(to: file)
            let table = DebugLineTable(elfFile: file.path, keeping: { _ in true })
            #expect((0..<1000).allSatisfy { table.location(of: UInt64($0) * 4096) == nil }, "\(name)")
        }
        #expect(
            DebugLineTable(elfFile: folder.appendingPathComponent("absent").path, keeping: { _ in true }).location(
                of: 0) == nil)
    }
}
