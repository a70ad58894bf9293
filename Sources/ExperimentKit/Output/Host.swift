import Foundation

/// The machine a run happened on, as the reports' header shows it.
public struct Host: Sendable, Equatable {
    public var cpus: Int
    public var os: String
    public var swift: String

    public init(cpus: Int, os: String, swift: String) {
        self.cpus = cpus
        self.os = os
        self.swift = swift
    }

    /// This machine: CPUs this process may run on, the OS name and version, the compiler's Swift version.
    public static var current: Host {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        #if os(Linux)
        let name = "Linux"
        #else
        let name = "macOS"
        #endif
        return Host(
            cpus: ProcessInfo.processInfo.activeProcessorCount,
            os: "\(name) \(version.majorVersion).\(version.minorVersion).\(version.patchVersion)",
            swift: compilerSwiftVersion
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
