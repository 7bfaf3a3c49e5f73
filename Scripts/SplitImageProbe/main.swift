// A client of TraitKit built as a shared library that keeps its own copy of the read path's
// process-wide words (see Sources/CTraitKitShims/CTraitKitReadGate.h): its inlined reads see
// those words as 0 and must take TraitKit's out-of-line paths. Each check prints "ok" or "FAIL";
// the exit status is the number of failures (at most 100). Run by Scripts/split-image-check.sh.
import CTraitKitShims
import TraitKit

#if canImport(Glibc)
import Glibc
#endif

enum Seven: TraitDefinition { static let defaultValue = 0 }
enum FirstReadInRun: TraitDefinition { static let defaultValue = 0 }
enum WrittenByClient: TraitDefinition { static let defaultValue = 0 }
enum Boxed: TraitDefinition { static let defaultValue = "default" }

/// Counts the calls of its `identifier` witness: registering a type runs it, a lookup must not.
enum Counted: TraitDefinition {
  static let defaultValue = 0
  nonisolated(unsafe) static var identifierCalls = 0
  static var identifier: String {
    identifierCalls += 1
    return "SplitImageProbe.Counted"
  }
}

nonisolated(unsafe) var failures = 0
nonisolated(unsafe) var invalidations = 0

func check(_ condition: Bool, _ what: String) {
  print(condition ? "ok  " : "FAIL", what)
  if !condition { failures += 1 }
}

// NB: `@inline(never)` functions, so that each read is compiled into this client, inlined from
// TraitKit's inlinable read path, as an app's would be.
@inline(never) func read(_ node: TraitNode) -> Int { node.traitCollection[Seven.self] }
@inline(never) func readBoxed(_ node: TraitNode) -> String { node.traitCollection[Boxed.self] }
@inline(never) func readTracked<T: TraitDefinition>(
  _: T.Type,
  of node: TraitNode,
  slot: TraitTrackingSlot
) -> T.Value {
  let invalidation: (TraitNode) -> Void = { _ in invalidations += 1 }
  return node.withTraitTracking(slot: slot, invalidation: invalidation) {
    node.traitCollection[T.self]
  }
}
@inline(never) func write(_ value: Int, to node: TraitNode) {
  node.traitOverrides[WrittenByClient.self] = value
}
@inline(never) func writeBoxed(_ value: String, to node: TraitNode) {
  node.traitOverrides[Boxed.self] = value
}

let graph = TraitGraph()
let child = TraitNode()
graph.root.addTraitChild(child)
graph.root.traitOverrides[Seven.self] = 7
graph.root.traitOverrides[Boxed.self] = "overridden"
graph.updateTraitsIfNeeded()

// Without a split image the checks below prove nothing: say so and fail.
let ownTable = ctraitkit_load_published_table()
check(ownTable == 0, "the client reads its own copy of the published table's word (\(ownTable))")

check(read(child) == 7, "a plain read finds the override (\(read(child)))")
check(readBoxed(child) == "overridden", "a plain read of a boxed value (\(readBoxed(child)))")

check(readTracked(Seven.self, of: child, slot: .layout) == 7, "a tracked read finds the override")
check(readTracked(Boxed.self, of: child, slot: .display) == "overridden", "a tracked boxed read")
check(
  readTracked(FirstReadInRun.self, of: child, slot: TraitTrackingSlot("first")) == 0,
  "a type read for the first time, in a tracked run, reads its default"
)
invalidations = 0
graph.root.traitOverrides[Seven.self] = 8
graph.root.traitOverrides[Boxed.self] = "changed"
graph.root.traitOverrides[FirstReadInRun.self] = 3
graph.updateTraitsIfNeeded()
check(invalidations == 3, "each tracked read was recorded: 3 invalidations (\(invalidations))")
check(read(child) == 8, "a plain read after the change (\(read(child)))")

write(5, to: child)
check(
  child.traitCollection[WrittenByClient.self] == 5,
  "an override written by the client reads back"
)
writeBoxed("written", to: child)
check(readBoxed(child) == "written", "a boxed override written by the client reads back")

var calls = 0
child.registerForTraitChanges([Seven.self]) { (_: TraitNode, _: TraitCollection) in calls += 1 }
graph.root.traitOverrides[Seven.self] = 9
graph.updateTraitsIfNeeded()
check(calls == 1, "a registration made by the client is called once (\(calls))")

child.traitOverrides[Counted.self] = 0
let before = Counted.identifierCalls
for value in 1...1_000 { child.traitOverrides[Counted.self] = value }
check(
  Counted.identifierCalls == before,
  "writes of a registered type run none of its witnesses (\(Counted.identifierCalls - before) "
    + "calls of `identifier` in 1,000 writes)"
)
check(child.traitCollection[Counted.self] == 1_000, "the last write reads back")

print(
  failures == 0 ? "split-image probe: all checks passed" : "split-image probe: \(failures) failed"
)
exit(Int32(min(failures, 100)))
