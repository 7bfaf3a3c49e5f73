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

  @Test("an empty path and a path that ends in a slash fail the check")
  func emptyAndFolderPaths() throws {
    try withFolder { folder in
      let empty = #expect(throws: UsageError.self) { try OutputFile(path: "").checkWritable() }
      #expect(empty?.message == "cannot write a file with an empty name")
      let slash = folder + "/missing/"
      let error = #expect(throws: UsageError.self) { try OutputFile(path: slash).checkWritable() }
      #expect(error?.message == "cannot write \(slash): it is a folder")
    }
  }

  @Test("a write through a symbolic link replaces the file it names and keeps the link")
  func symbolicLink() throws {
    try withFolder { folder in
      let target = folder + "/target.txt"
      let link = folder + "/link.txt"
      try "old\n".write(toFile: target, atomically: true, encoding: .utf8)
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.txt")
      let file = OutputFile(path: link)
      try file.checkWritable()
      #expect(file.write("new\n") == nil)
      #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "target.txt")
      #expect(try String(contentsOfFile: target, encoding: .utf8) == "new\n")
    }
  }

  @Test("a write through a link to a file not made yet makes the file it names and keeps the link")
  func danglingSymbolicLink() throws {
    try withFolder { folder in
      let link = folder + "/link.txt"
      try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "later.txt")
      let file = OutputFile(path: link)
      try file.checkWritable()
      #expect(file.write("new\n") == nil)
      #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "later.txt")
      #expect(try String(contentsOfFile: folder + "/later.txt", encoding: .utf8) == "new\n")
    }
  }

  @Test("a link to a file in a missing folder fails the check, naming that folder")
  func danglingSymbolicLinkIntoMissingFolder() throws {
    try withFolder { folder in
      let link = folder + "/link.txt"
      try FileManager.default.createSymbolicLink(
        atPath: link,
        withDestinationPath: folder + "/missing/report.txt"
      )
      let error = #expect(throws: UsageError.self) { try OutputFile(path: link).checkWritable() }
      #expect(error?.message?.hasSuffix("there is no folder \(folder)/missing") == true)
      #expect(
        try FileManager.default.destinationOfSymbolicLink(atPath: link).hasSuffix(
          "missing/report.txt"
        )
      )
    }
  }

  @Test("a replaced file keeps its permissions")
  func permissionsKept() throws {
    try withFolder { folder in
      let path = folder + "/report.txt"
      try "old\n".write(toFile: path, atomically: true, encoding: .utf8)
      try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
      #expect(OutputFile(path: path).write("new\n") == nil)
      let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]
      #expect((permissions as? NSNumber)?.intValue == 0o640)
      #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
    }
  }

  @Test("a pipe passes the check and is written in place, not replaced")
  func pipe() throws {
    try withFolder { folder in
      let path = folder + "/fifo"
      #expect(mkfifo(path, 0o600) == 0)
      let file = OutputFile(path: path)
      try file.checkWritable()
      // The reader opens the pipe on another thread: opening either end waits for the other.
      let received = Received()
      let thread = Thread {
        let data = FileHandle(forReadingAtPath: path)?.readDataToEndOfFile()
        received.text = data.map { String(decoding: $0, as: UTF8.self) } ?? "<unreadable>"
        received.done.signal()
      }
      thread.start()
      #expect(file.write("through the pipe\n") == nil)
      received.done.wait()
      #expect(received.text == "through the pipe\n")
      var info = stat()
      #expect(lstat(path, &info) == 0)
      #expect(info.st_mode & S_IFMT == S_IFIFO)
    }
  }
}

/// What the reader of a pipe read, once `done` is signalled.
private final class Received: @unchecked Sendable {
  var text = ""
  let done = DispatchSemaphore(value: 0)
}
