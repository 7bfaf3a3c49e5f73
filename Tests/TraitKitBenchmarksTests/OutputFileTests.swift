import Foundation
import Testing

@testable import TraitKitBenchmarks

@Suite("traitkit-bench output files")
struct OutputFileTests {
  /// A fresh folder for one test, removed by `body`'s end.
  private func withFolder(_ body: (String) throws -> Void) throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("traitkit-bench-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try body(folder)
  }

  @Test("a new file in an existing folder passes the check, which creates nothing")
  func newFile() throws {
    try withFolder { folder in
      let path = folder + "/report.json"
      try OutputFile(path: path).checkWritable()
      #expect(!FileManager.default.fileExists(atPath: path))
    }
  }

  @Test("an existing file passes the check and keeps its contents until the write")
  func existingFile() throws {
    try withFolder { folder in
      let path = folder + "/report.csv"
      try "earlier run\n".write(toFile: path, atomically: true, encoding: .utf8)
      let file = OutputFile(path: path)
      try file.checkWritable()
      #expect(try String(contentsOfFile: path, encoding: .utf8) == "earlier run\n")
      #expect(file.write("new run\n") == nil)
      #expect(try String(contentsOfFile: path, encoding: .utf8) == "new run\n")
    }
  }

  @Test("a path in a missing folder fails the check, naming the folder")
  func missingFolder() throws {
    try withFolder { folder in
      let path = folder + "/missing/report.json"
      let error = #expect(throws: UsageError.self) { try OutputFile(path: path).checkWritable() }
      #expect(error?.message == "cannot write \(path): there is no folder \(folder)/missing")
    }
  }

  @Test("a path that names a folder fails the check")
  func folderPath() throws {
    try withFolder { folder in
      let error = #expect(throws: UsageError.self) {
        try OutputFile(path: folder).checkWritable()
      }
      #expect(error?.message == "cannot write \(folder): it is a folder")
    }
  }

  @Test("a write that fails says why in the operating system's words")
  func failedWrite() throws {
    try withFolder { folder in
      let path = folder + "/missing/chart.svg"
      #expect(
        OutputFile(path: path).write("<svg/>")
          == "cannot write \(path): \(String(cString: strerror(ENOENT)))"
      )
    }
  }
}
