import Foundation
import Testing

// R12: the legacy adapter is deprecated, with a message that points at `registerForTraitChanges`,
// exactly like UIKit's `traitCollectionDidChange(_:)`. A deprecation is something the compiler
// says, not something a program can observe, so these tests type-check small clients against
// the modules this test run was built with, and read what the compiler says.

/// What the compiler said about a client, and how it exited.
private struct Diagnostics {
  let status: Int32
  let output: String

  /// The deprecation warnings, one per line of the compiler's output that names one.
  var deprecations: [Substring] {
    output.split(separator: "\n").filter { $0.contains("warning:") && $0.contains("deprecated") }
  }
}

/// Type-checks `client` against this build's TraitKit and TraitKitLegacy modules.
private func typeCheck(_ client: String) throws -> Diagnostics {
  let modules = try #require(
    builtModulesDirectory(),
    """
    No Modules directory with TraitKitLegacy.swiftmodule above \(CommandLine.arguments[0]) \
    or in \(packageRoot.path)/.build/debug
    """
  )
  let compiler = try #require(
    toolOnPath("swiftc"),
    "swiftc is not on PATH: the deprecation tests compile a client with the toolchain"
  )
  // NB: TraitKit's interface imports its C shims module, which lives in the sources.
  let headers = packageRoot.appendingPathComponent("Sources/CTraitKitShims").path
  let scratch = FileManager.default.temporaryDirectory
    .appendingPathComponent("traitkit-deprecation-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: scratch) }
  let source = scratch.appendingPathComponent("Client.swift")
  try client.write(to: source, atomically: true, encoding: .utf8)

  let process = Process()
  process.executableURL = URL(fileURLWithPath: compiler)
  process.arguments = [
    "-typecheck", "-I", modules, "-I", headers,
    "-module-cache-path", scratch.appendingPathComponent("ModuleCache").path,
    source.path,
  ]
  let pipe = Pipe()
  process.standardOutput = pipe
  process.standardError = pipe
  try process.run()
  let output = pipe.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  return Diagnostics(
    status: process.terminationStatus,
    output: String(decoding: output, as: UTF8.self)
  )
}

/// The `Modules` directory of the build that holds TraitKitLegacy's module
/// (`.build/<triple>/<configuration>/Modules`): the nearest above the test executable, or else,
/// when a helper tool runs the tests, the package's debug build.
private func builtModulesDirectory() -> String? {
  func modules(in directory: URL) -> String? {
    let modules = directory.appendingPathComponent("Modules")
    let module = modules.appendingPathComponent("TraitKitLegacy.swiftmodule")
    return FileManager.default.fileExists(atPath: module.path) ? modules.path : nil
  }
  var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
  for _ in 0..<6 {
    directory.deleteLastPathComponent()
    if let found = modules(in: directory) { return found }
  }
  return modules(in: packageRoot.appendingPathComponent(".build/debug"))
}

/// The package's root directory, from this file's path.
private let packageRoot = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The path of the executable `name` on PATH, if any.
private func toolOnPath(_ name: String) -> String? {
  let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
  return path.split(separator: ":").map { "\($0)/\(name)" }.first {
    FileManager.default.isExecutableFile(atPath: $0)
  }
}

/// What the compiler must say of every use of the adapter.
private let deprecationMessage =
  "is deprecated: Use the trait change registration APIs of TraitChangeObservable: "
  + "registerForTraitChanges(_:handler:) for the traits you use"

@Suite("The legacy adapter is deprecated (R12)")
struct DeprecationTests {
  @Test("adopting traitCollectionDidChange warns, and the warning names registerForTraitChanges")
  func adoptingWarns() throws {
    let diagnostics = try typeCheck(
      """
      import TraitKit
      import TraitKitLegacy

      final class LegacyView: TraitNode, TraitCollectionDidChangeObserving {
        override init() {
          super.init()
          adoptTraitCollectionDidChange()
        }

        func traitCollectionDidChange(_ previousTraitCollection: TraitCollection?) {}
      }
      """
    )
    #expect(diagnostics.status == 0, "\(diagnostics.output)")
    let deprecations = diagnostics.deprecations
    #expect(
      deprecations.contains {
        $0.contains("'TraitCollectionDidChangeObserving' \(deprecationMessage)")
      },
      "\(diagnostics.output)"
    )
    #expect(
      deprecations.contains {
        $0.contains("'adoptTraitCollectionDidChange(interestingTraits:)' \(deprecationMessage)")
      },
      "\(diagnostics.output)"
    )
  }

  @Test("a client that registers for the traits it uses gets no warning")
  func registeringDoesNotWarn() throws {
    let diagnostics = try typeCheck(
      """
      import TraitKit
      import TraitKitLegacy

      final class MigratedView: TraitNode {
        override init() {
          super.init()
          registerForTraitChanges([TraitHorizontalSizeClass.self]) {
            (self: Self, _: TraitCollection) in
            _ = self.traitCollection.horizontalSizeClass
          }
        }
      }
      """
    )
    #expect(diagnostics.status == 0, "\(diagnostics.output)")
    #expect(diagnostics.deprecations.isEmpty, "\(diagnostics.output)")
    #expect(!diagnostics.output.contains("warning:"), "\(diagnostics.output)")
  }
}
