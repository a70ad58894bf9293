import ExperimentKit
import ExperimentModel
import ExperimentReports
import Foundation
import TestSupport
import Testing

@testable import ExperimentCLI
@testable import ExperimentRunner

/// Every path through the command-line parser, valid and not.
@Suite(.serialized, .oneAtATime) struct ArgumentParserTests {
    func options(_ arguments: [String]) throws -> RunOptions {
        guard case .run(let options) = try ArgumentParser.parse(arguments) else {
            Issue.record("expected a run command for \(arguments)")
            return RunOptions()
        }
        return options
    }

    func error(_ arguments: [String]) -> String? {
        do {
            _ = try ArgumentParser.parse(arguments)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func namesAllAndOptions() throws {
        let parsed = try options([
            "serial-queue", "qos-ordering", "--time-scale", "0.1", "--format=json", "--profile", "apple",
        ])
        #expect(parsed.names == ["serial-queue", "qos-ordering"])
        #expect(parsed.timeScale == 0.1)
        #expect(parsed.format == .json)
        #expect(parsed.profile == .apple)
        #expect(try options(["all"]).all)
        #expect(try options(["--filter", "queue", "--filter", "QoS"]).filters == ["queue", "QoS"])
    }

    @Test func subcommandsHelpAndVersion() throws {
        #expect(
            try ArgumentParser.parse(["list", "--profile", "apple"])
                == .list(
                    {
                        var o = RunOptions(); o.profile = .apple; return o
                    }()))
        #expect(
            try ArgumentParser.parse(["list", "--cpus", "1", "--filter", "queue"])
                == .list(
                    {
                        var o = RunOptions(); o.cpus = 1; o.filters = ["queue"]; return o
                    }()))
        #expect(try ArgumentParser.parse(["-h"]) == .help)
        #expect(try ArgumentParser.parse(["serial-queue", "--help"]) == .help)
        #expect(try ArgumentParser.parse(["help"]) == .help)
        #expect(try ArgumentParser.parse(["new", "my-queue"]) == .new(name: "my-queue"))
        #expect(try ArgumentParser.parse(["--version"]) == .version)
        // The child gets the runner's request as one JSON argument, and reads back the same request.
        let none = Parameters([])
        for request in [
            ChildProcess.Request(experiment: "serial-queue", timeScale: 0.5, parameters: none),
            ChildProcess.Request(
                experiment: "four-images", timeScale: 1, imagesDirectory: "/tmp/i", cpus: 1, parameters: none),
            ChildProcess.Request(
                experiment: "knobs", timeScale: 1,
                parameters: try KnobsExperiment.experiment.parameters(overriding: ["width": "3", "qos": "background"])),
        ] {
            #expect(try ArgumentParser.parse(["__child", request.argument]) == .child(request))
        }
        #expect(
            try ArgumentParser.parse(["describe", "serial-queue", "--format", "json"])
                == .describe(name: "serial-queue", format: .json))
        #expect(
            try options(["all", "--set", "width=3", "--set", "sleep=1", "--cpus", "1"]).settings == [
                "width": "3", "sleep": "1",
            ])
        #expect(try options(["all", "--report-dir", "out"]).reportDirectory == "out")
        #expect(try options(["all", "--report"]).writesReport)
        #expect(try options(["all", "--repeat", "5"]).repeats == 5)
    }

    @Test(arguments: ["0", "-1", "nan", "inf", "-inf", "fast", "", "0.04", "10.5", "1e9"])
    func badTimeScales(_ value: String) {
        let message = error(["all", "--time-scale", value])
        #expect(
            message?.contains("time scale") == true || message?.contains("Time scale") == true,
            "\(value): \(message ?? "accepted")")
    }

    /// `watch` selects as a run does, always writes the report, and passes its options to each
    /// round's run; a single run's options are refused.
    @Test func watchSelectsAndPassesItsOptionsOn() throws {
        guard
            case .watch(let options) = try ArgumentParser.parse([
                "watch", "my-queue", "--time-scale", "0.1", "--set", "width=1", "--lines",
            ])
        else {
            Issue.record("expected a watch command")
            return
        }
        #expect(options.names == ["my-queue"] && options.writesReport)
        #expect(
            Watch.arguments(of: options) == [
                "my-queue", "--time-scale", "0.1", "--set", "width=1", "--lines", "--report-dir", "Reports/latest",
            ])
        #expect(error(["watch"]) == "No experiment given. Name one or more, or say 'all'.")
        #expect(
            error(["watch", "all", "--format", "json"])
                == "'watch' does not take '--format' (it takes --filter, --time-scale, --set, --cpus, --lines, --report, --report-dir)."
        )
        #expect(error(["watch", "all", "--repeat", "2"])?.hasPrefix("'watch' does not take '--repeat'") == true)
        #expect(
            error(["watch", "all", "--time-scale", "20"])
                == "'20' is not a valid time scale (a number from 0.05 to 10).")
    }

    /// The package a built executable belongs to, and none for one outside a `.build`.
    @Test func watchFindsThePackageOfTheExecutable() {
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let built = checkout.appendingPathComponent(".build/x86_64-unknown-linux-gnu/debug/run-experiments")
        #expect(Watch.packageRoot(of: built)?.standardizedFileURL == checkout.standardizedFileURL)
        #expect(Watch.packageRoot(of: URL(fileURLWithPath: "/usr/local/bin/run-experiments")) == nil)
    }

    /// A failed build shows the compiler's first errors, each once, relative to the package.
    @Test func aFailedBuildShowsTheFirstErrors() {
        let root = URL(fileURLWithPath: "/p")
        let output = (1...7).map {
            "/p/Experiments/Playground/MyQueue.swift:\($0):5: error: cannot find 'prnt' in scope\n  |  `- error: x"
        }.joined(separator: "\n")
        let shown = Watch.firstErrors(of: output + "\n" + output, root: root).split(separator: "\n")
        #expect(
            shown.count == Watch.shownErrors
                && shown.first == "Experiments/Playground/MyQueue.swift:1:5: error: cannot find 'prnt' in scope")
        #expect(Watch.firstErrors(of: "error: manifest parse failed", root: root) == "error: manifest parse failed")
    }

    @Test func acceptedTimeScaleEdges() throws {
        #expect(try options(["all", "--time-scale", "0.05"]).timeScale == 0.05)
        #expect(try options(["all", "--time-scale", "10"]).timeScale == 10)
    }

    @Test func usageErrors() {
        #expect(error([]) == "No experiment given. Name one or more, or say 'all'.")
        #expect(error(["all", "--tiem-scale", "1"]) == "Unknown option '--tiem-scale'. Did you mean '--time-scale'?")
        #expect(error(["all", "--bogus"]) == "Unknown option '--bogus'.")
        #expect(error(["all", "--time-scale"]) == "Missing value for '--time-scale' (a number from 0.05 to 10).")
        #expect(
            error(["all", "--format", "--profile", "linux"])
                == "Missing value for '--format' (values: text, json, markdown, junit).")
        #expect(error(["all", "--format", "xml"]) == "Unknown format 'xml' (values: text, json, markdown, junit).")
        #expect(error(["all", "--profile", "windows"]) == "Unknown profile 'windows' (values: linux, apple).")
        #expect(error(["serial-queue", "serial-queue"]) == "The experiment 'serial-queue' was named twice.")
        #expect(
            error(["all", "serial-queue"]) == "'all' already selects every experiment; drop 'serial-queue' or 'all'.")
        #expect(error(["all", "--time-scale", "1", "--time-scale", "2"]) == "'--time-scale' was given more than once.")
        #expect(error(["all", "--filter", ""]) == "'--filter' needs a non-empty text.")
        #expect(error(["list", "serial-queue"]) == "'list' takes no experiment names; got 'serial-queue'.")
        #expect(error(["__child", "serial-queue"]) != nil)
        #expect(error(["__child", "{}"]) != nil)
        #expect(error(["new"]) == "'new' takes one name for your experiment, e.g. 'run-experiments new my-queue'.")
        #expect(error(["new", "a", "b"]) != nil)
        let none = #"{"isArticleSetting":true,"origins":[],"values":[]}"#
        #expect(
            (try? ArgumentParser.parse([
                "__child", #"{"experiment":"plain","timeScale":1,"parameters":\#(none),"waitsForGo":false}"#,
            ])) != nil)
        #expect(
            error(["__child", #"{"experiment":"plain","timeScale":0,"parameters":\#(none),"waitsForGo":false}"#]) != nil
        )
        #expect(
            error(["__child", #"{"experiment":"plain","timeScale":1,"waitsForGo":false}"#]) != nil,
            "a request without the values is none")
        #expect(
            error([
                "__child", ChildProcess.Request(experiment: "plain", timeScale: 1, parameters: Parameters([])).argument,
                "--set",
            ]) != nil)
        #expect(error(["__plan"]) != nil)
        #expect(error(["__plan", "serial-queue"]) != nil)
        #expect(error(["__plan", PlanChild.Request(experiments: []).argument, "--set"]) != nil)
        let planning = PlanChild.Request(experiments: [
            .init(experiment: "knobs", parameters: KnobsExperiment.experiment.defaultParameters)
        ])
        #expect((try? ArgumentParser.parse(["__plan", planning.argument])) == .plans(planning))
        #expect(error(["all", "--repeat", "0"]) == "'0' is not a valid repeat count (a whole number from 1 to 100).")
        #expect(
            error(["all", "--repeat", "two"]) == "'two' is not a valid repeat count (a whole number from 1 to 100).")
        #expect(error(["all", "--report-dir", ""]) == "'--report-dir' needs a folder.")
        // A flag is not a value: no folder named '--report'.
        #expect(
            error(["all", "--report-dir", "--report"])
                == "Missing value for '--report-dir' (a folder to write the report into).")
        #expect(
            error(["all", "--filter", "--help"])
                == "Missing value for '--filter' (a part of an experiment's name or title).")
        #expect(error(["all", "--reports"]) == "Unknown option '--reports'. Did you mean '--report'?")
        let long = "--" + String(repeating: "x", count: 100_000)
        #expect(error(["all", long]) == "Unknown option '\(long.prefix(40))…\(long.suffix(30))' (100002 characters).")
        #expect(error(["all", "--set", "width"]) == "'--set' takes KEY=VALUE, e.g. --set width=3; got 'width'.")
        #expect(error(["all", "--set", "width=2", "--set", "width=3"]) == "'width' was set more than once.")
        #expect(error(["all", "--cpus", "0"]) == "'0' is not a valid CPU count (a whole number from 1 to 64).")
        #expect(error(["describe"]) == "'describe' takes one experiment name.")
        #expect(error(["all", "--report=yes"]) == "'--report' takes no value.")
        // 'list' refuses what it would ignore: it predicts, so it writes no report and repeats nothing.
        #expect(
            error(["list", "--set", "width=3"])
                == "'list' does not take '--set' (it takes --filter, --time-scale, --profile, --format, --cpus).")
        #expect(
            error(["list", "--report"])
                == "'list' does not take '--report' (it takes --filter, --time-scale, --profile, --format, --cpus).")
    }

    /// Help, the usage line and the errors come from one declaration per option.
    @Test func helpAndUsageFromTheDeclarations() {
        let help = Usage.help(registry: [])
        for option in ArgumentParser.declarations {
            #expect(help.components(separatedBy: "\n  \(option.helpLabel) ").count == 2, "\(option.name) listed once")
            #expect(option.answer != nil || Usage.line.contains(option.usage), "\(option.name) in the usage line")
            if let value = option.value {
                #expect(error(["all", option.name]) == "Missing value for '\(option.name)' (\(value.accepted)).")
            }
        }
        #expect(
            help.contains(
                "--time-scale X                    Real seconds per article second. (a number from 0.05 to 10; default: 1)"
            ))
        #expect(
            help.split(separator: "\n").allSatisfy {
                $0.count <= Usage.width || $0.hasPrefix("USAGE:") || $0.hasPrefix("       run-experiments")
            })
    }

    /// The CI options (`--junit`, `--compare`, `--compare-threshold`) read and checked before anything runs.
    @Test func theOptionsAreCheckedBeforeAnythingRuns() throws {
        func message(_ arguments: [String]) -> String? {
            do {
                _ = try ArgumentParser.parse(arguments)
                return nil
            } catch {
                return error.message
            }
        }
        guard
            case .run(let options) = try ArgumentParser.parse([
                "all", "--format", "junit", "--junit", "out.xml", "--compare", "old.json", "--compare-threshold",
                "2.5%",
            ])
        else {
            Issue.record("a run")
            return
        }
        #expect(
            options.format == .junit && options.junitFile == "out.xml" && options.compareFile == "old.json"
                && options.compareThreshold == 0.025)
        #expect(
            message(["all", "--compare-threshold", "5%"])
                == "'--compare-threshold' goes with '--compare FILE', the earlier run to compare with.")
        #expect(
            message(["all", "--compare", "a.json", "--compare-threshold", "five"])
                == "'five' is not a valid threshold (a percentage from 0% to 1000%, e.g. 5%).")
        #expect(message(["list", "--format", "junit"])?.hasPrefix("'list' has no verdicts to write as JUnit") == true)
        #expect(message(["list", "--junit", "x.xml"])?.hasPrefix("'list' does not take '--junit'") == true)
    }
}
