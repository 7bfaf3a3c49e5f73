/// Traps with `message` unless `condition` holds, in release builds too.
///
/// The benchmark checks the engine and its own workloads with it: `precondition` keeps no
/// message under `-O`, the build that `swift run -c release traitkit-bench` runs.
func require(
  _ condition: @autoclosure () -> Bool,
  _ message: @autoclosure () -> String,
  file: StaticString = #fileID,
  line: UInt = #line
) {
  guard condition() else { fatalError(message(), file: file, line: line) }
}
