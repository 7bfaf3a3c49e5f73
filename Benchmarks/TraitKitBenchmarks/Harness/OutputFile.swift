import Foundation

/// A file that `--output` or `--svg` names.
///
/// Checked before the run, so that a path that cannot be written fails in a moment instead of
/// after minutes of measuring; written after it. A regular file is replaced atomically, so that a
/// failed write leaves any earlier file at that path whole; the new file keeps the old one's
/// permissions, and a symbolic link keeps pointing where it did: the file it names is replaced.
/// Anything else that can be written, such as a pipe (`--output >(jq .)`) or `/dev/stdout`, is
/// written in place.
struct OutputFile {
  let path: String

  /// The path a write goes to: absolute, with symbolic links resolved, so that the file a link
  /// names is replaced (or made, when it does not exist yet) rather than the link; or `path`
  /// itself where links lead to no path, as `/dev/stdout`'s and `/dev/fd/N`'s lead to a pipe's
  /// or a terminal's inode.
  var resolvedPath: String {
    let files = FileManager.default
    var resolved = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    // NB: `resolvingSymlinksInPath()` leaves a link to a file that does not exist as it is: its
    // target, relative to the link's folder, is where the write goes (at most 32 links deep, as
    // the system follows them).
    var links = 0
    while links < 32, let target = try? files.destinationOfSymbolicLink(atPath: resolved) {
      let folder = URL(fileURLWithPath: resolved).deletingLastPathComponent()
      resolved = URL(fileURLWithPath: target, relativeTo: folder).standardizedFileURL.path
      links += 1
    }
    return files.fileExists(atPath: path) && !files.fileExists(atPath: resolved) ? path : resolved
  }

  /// Throws when `path` cannot be written: it is empty, its folder is missing or read-only, or it
  /// names a folder or a read-only file.
  ///
  /// Nothing is created or truncated: an earlier report at `path` stays until the new one is
  /// written.
  func checkWritable() throws(UsageError) {
    guard !path.isEmpty else { throw UsageError("cannot write a file with an empty name") }
    let files = FileManager.default
    var isFolder: ObjCBool = false
    // NB: a trailing slash names a folder, even one that does not exist.
    if path.hasSuffix("/") || files.fileExists(atPath: path, isDirectory: &isFolder) {
      if path.hasSuffix("/") || isFolder.boolValue {
        throw UsageError("cannot write \(path): it is a folder")
      }
      if !files.isWritableFile(atPath: path) {
        throw UsageError("cannot write \(path): the file is read-only")
      }
      guard Self.isRegularFile(resolvedPath) else { return }
    }
    // A new file, or a regular one that is replaced: the folder of the file a write replaces
    // (through any symbolic link) must take a new file.
    let target = resolvedPath
    let parent = (target as NSString).deletingLastPathComponent
    guard files.fileExists(atPath: parent, isDirectory: &isFolder), isFolder.boolValue else {
      throw UsageError("cannot write \(path): there is no folder \(parent)")
    }
    guard files.isWritableFile(atPath: parent) else {
      throw UsageError("cannot write \(path): the folder \(parent) is read-only")
    }
  }

  /// Writes `text`; returns why it could not, or nil.
  func write(_ text: String) -> String? {
    let target = resolvedPath
    let files = FileManager.default
    do {
      guard files.fileExists(atPath: target) else {
        try text.write(toFile: target, atomically: true, encoding: .utf8)
        return nil
      }
      guard Self.isRegularFile(target) else {
        // A pipe or a device: there is nothing to replace, and no folder to replace it in.
        try text.write(toFile: target, atomically: false, encoding: .utf8)
        return nil
      }
      let permissions = try files.attributesOfItem(atPath: target)[.posixPermissions]
      try text.write(toFile: target, atomically: true, encoding: .utf8)
      if let permissions {
        try files.setAttributes([.posixPermissions: permissions], ofItemAtPath: target)
      }
      return nil
    } catch {
      return "cannot write \(path): \(Self.reason(error))"
    }
  }

  /// Whether `path` names a regular file itself, not a link to one.
  private static func isRegularFile(_ path: String) -> Bool {
    let type = try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType
    return type == .typeRegular
  }

  /// The operating system's words for `error` when it has them, such as "No space left on
  /// device".
  // NB: the underlying error is a `POSIXError` when a file write fails, and an `NSError` of the
  // POSIX domain when a `FileHandle` write does.
  static func reason(_ error: any Error) -> String {
    if let posix = (error as? CocoaError)?.underlying as? POSIXError {
      return String(cString: strerror(posix.code.rawValue))
    }
    let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
    if let underlying, underlying.domain == NSPOSIXErrorDomain {
      return String(cString: strerror(Int32(underlying.code)))
    }
    return error.localizedDescription
  }
}
