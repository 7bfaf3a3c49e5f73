/// Stops the program because the caller broke a rule of TraitKit's API, naming the rule.
///
/// Unlike `preconditionFailure`, whose message an optimized build drops, this prints the message
/// in every build: the mistake is the caller's, and a release build is where it is hardest to
/// find without one. Broken internal invariants still use `precondition`.
@usableFromInline
func _apiMisuse(
  _ message: @autoclosure () -> String,
  file: StaticString = #fileID,
  line: UInt = #line
) -> Never {
  fatalError(message(), file: file, line: line)
}

/// Stops the program with `message` unless `condition` holds (see `_apiMisuse`).
@inlinable @inline(__always)
func _requireAPI(
  _ condition: @autoclosure () -> Bool,
  _ message: @autoclosure () -> String,
  file: StaticString = #fileID,
  line: UInt = #line
) {
  if !condition() { _apiMisuse(message(), file: file, line: line) }
}
