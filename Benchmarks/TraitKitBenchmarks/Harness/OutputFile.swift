import Foundation

/// A file that `--output` or `--svg` names.
///
/// Checked before the run, so that a path that cannot be written fails in a moment instead of
/// after minutes of measuring; written after it, atomically, so that a failed write leaves any
/// earlier file at that path whole.
struct OutputFile {
  let path: String

  /// Throws when `path` cannot be written: its folder is missing or read-only, or it names a
  /// folder or a read-only file.
  ///
  /// Nothing is created or truncated: an earlier report at `path` stays until the new one is
  /// written.
  func checkWritable() throws(UsageError) {
    let files = FileManager.default
    var isFolder: ObjCBool = false
    if files.fileExists(atPath: path, isDirectory: &isFolder) {
      if isFolder.boolValue { throw UsageError("cannot write \(path): it is a folder") }
      if !files.isWritableFile(atPath: path) {
        throw UsageError("cannot write \(path): the file is read-only")
      }
      return
    }
    let folder = (path as NSString).deletingLastPathComponent
    let parent = folder.isEmpty ? "." : folder
    guard files.fileExists(atPath: parent, isDirectory: &isFolder), isFolder.boolValue else {
      throw UsageError("cannot write \(path): there is no folder \(parent)")
    }
    guard files.isWritableFile(atPath: parent) else {
      throw UsageError("cannot write \(path): the folder \(parent) is read-only")
    }
  }

  /// Writes `text`; returns why it could not, or nil.
  func write(_ text: String) -> String? {
    do {
      try text.write(toFile: path, atomically: true, encoding: .utf8)
      return nil
    } catch {
      return "cannot write \(path): \(Self.reason(error))"
    }
  }

  /// The operating system's words for `error` when it has them, such as "No space left on
  /// device".
  private static func reason(_ error: any Error) -> String {
    if let posix = (error as? CocoaError)?.underlying as? POSIXError {
      return String(cString: strerror(posix.code.rawValue))
    }
    return error.localizedDescription
  }
}
