import Foundation

/// The machine a run happened on, as the reports' header shows it.
package struct HostMachine: Sendable, Equatable {
    package var cpus: Int
    package var os: String
    package var swift: String
    /// Measured at the start of a run that runs experiments; nil when nothing runs.
    package var timerJitter: TimerJitter?
    /// How busy the machine was when the run began; nil where it cannot be read.
    package var loadAverage: LoadAverage?

    package init(cpus: Int, os: String, swift: String, timerJitter: TimerJitter? = nil, loadAverage: LoadAverage? = nil)
    {
        self.cpus = cpus
        self.os = os
        self.swift = swift
        self.timerJitter = timerJitter
        self.loadAverage = loadAverage
    }

    /// This machine: CPUs this process may run on, the OS name and version, the compiler's Swift
    /// version, and its load average now.
    package static var current: HostMachine {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        #if os(Linux)
        let name = "Linux"
        #else
        let name = "macOS"
        #endif
        return HostMachine(
            cpus: ProcessInfo.processInfo.activeProcessorCount,
            os: "\(name) \(version.majorVersion).\(version.minorVersion).\(version.patchVersion)",
            swift: compilerSwiftVersion,
            loadAverage: LoadAverage.current()
        )
    }

    private static var compilerSwiftVersion: String {
        #if swift(>=6.3)
        return "6.3"
        #elseif swift(>=6.2)
        return "6.2"
        #elseif swift(>=6.1)
        return "6.1"
        #else
        return "6.0"
        #endif
    }
}
