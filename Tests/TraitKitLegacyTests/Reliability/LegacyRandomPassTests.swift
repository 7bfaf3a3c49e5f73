import Foundation
import Testing

// A seeded randomized test of the legacy adapter (R12) and of registration lifetimes (R8, R9)
// under handlers that change the tree during passes. Each sequence builds a small random world
// (RandomPassWorld.swift): up to three graphs, a dozen nodes, some adopting
// `traitCollectionDidChange`, registrations with closures or weakly held targets, some in long
// lists of one trait that the engine delivers in runs. Each step makes a few random effects —
// overrides, base traits, moves between graphs, detachments, registrations, cancellations,
// adoptions, dropped targets and nodes, subtree and full passes — and every callback may make
// more, inside the pass.
//
// There is no model here: the checks are properties that hold whatever the engine delivers when,
// so they stay valid as the pass's strategy changes. The differential test
// (TraitKitTests/Reliability/DifferentialTests.swift) holds the engine to exact orders and
// rounds, but cannot see the legacy adapter; this test covers it.
//
// - Each legacy call: the previous collection is never nil and is the one the node last reported
//   (or had when it adopted); the collection really changed; `TraitCollection.current` is the
//   node's collection; the node is attached, in a pass of its graph, not dropped; and it is
//   called at most once per round.
// - Each registration's call: not after its cancellation or its node's drop; on its own node;
//   its previous values are exact for its traits, and one of them changed; the same attachment,
//   `TraitCollection.current` and once-a-round checks.
// - After every effect, in handlers too: each graph's statistics count the nodes and the live
//   registrations that a walk of its tree finds.
// - After each step's passes that `onNeedsUpdate` asked for, as a host that runs passes only when
//   asked (R5), and again after every graph's pass: every observer of an attached node has heard
//   of its current collection. Then every dropped node is gone.
//
// `swift test` runs 400 sequences of 40 steps from a fixed base seed, in 4 parallel slices. The
// environment overrides the defaults for soaking and replay, as in the differential test:
// TRAITKIT_SEED (the base seed, decimal or 0x-hex), TRAITKIT_SOAK_SEQUENCES,
// TRAITKIT_SOAK_STEPS (steps per sequence) and TRAITKIT_FIRST_SEQUENCE. A failure is reported
// with its sequence's seed, a replay command and the log of the step that failed.

/// Run sizes and seeds of the random passes, overridable from the environment.
enum RandomPassEnvironment {
  /// The base seed (`TRAITKIT_SEED`, decimal or 0x-hex).
  static var seed: UInt64 { number("TRAITKIT_SEED") ?? 0x1E6A_C7C1 }

  /// The first sequence to run (`TRAITKIT_FIRST_SEQUENCE`), to replay one.
  static var firstSequence: Int { number("TRAITKIT_FIRST_SEQUENCE").map { Int($0) } ?? 0 }

  /// The number of sequences (`TRAITKIT_SOAK_SEQUENCES`).
  static var sequences: Int { number("TRAITKIT_SOAK_SEQUENCES").map { Int($0) } ?? 400 }

  /// The steps per sequence (`TRAITKIT_SOAK_STEPS`).
  static var steps: Int { number("TRAITKIT_SOAK_STEPS").map { Int($0) } ?? 40 }

  /// A non-negative number read from the environment variable `name`, if set.
  private static func number(_ name: String) -> UInt64? {
    guard let text = ProcessInfo.processInfo.environment[name], !text.isEmpty else { return nil }
    if text.hasPrefix("0x") { return UInt64(text.dropFirst(2), radix: 16) }
    return UInt64(text)
  }
}

@Suite("Legacy callbacks and registrations under random passes")
struct LegacyRandomPassTests {
  /// The parallel slices of the run; sequence `i` runs in slice `i % slices`.
  static let slices = 4

  /// The most violations and log lines a failure report shows.
  static let reportedViolations = 4
  static let reportedLogLines = 80

  @Test(
    "legacy callbacks and registrations hear each change once a round, with their previous collection, and nothing outlives its node",
    arguments: 0..<slices
  )
  func randomSequences(slice: Int) {
    let base = RandomPassEnvironment.seed
    let steps = RandomPassEnvironment.steps
    var activity = RandomPassActivity()
    var sequencesRun = 0
    var failures = 0
    for sequence in stride(
      from: RandomPassEnvironment.firstSequence + slice,
      to: RandomPassEnvironment.sequences,
      by: Self.slices
    ) {
      let seed = SeededRandom.seed(base: base, index: sequence)
      let world = RandomPassWorld(seed: seed)
      for _ in 0..<steps where world.violations.isEmpty {
        world.runStep()
      }
      sequencesRun += 1
      activity = activity + world.activity
      guard !world.violations.isEmpty else { continue }
      Issue.record(Comment(rawValue: Self.report(world, sequence: sequence, seed: seed)))
      failures += 1
      if failures == 3 { break }
    }
    // A run too small to say anything (a replay of one sequence) skips the coverage check.
    guard sequencesRun >= 20 else { return }
    #expect(activity.legacyCalls > 0)
    #expect(activity.registrationCalls > 0)
    #expect(activity.handlerEffects > 0)
    #expect(activity.nestedPasses > 0)
  }

  /// A report of a failed sequence: what failed, how to replay it, and the failing step's log.
  static func report(_ world: RandomPassWorld, sequence: Int, seed: UInt64) -> String {
    let log = world.stepLog
    let shown = log.suffix(reportedLogLines)
    let omitted = log.count > shown.count ? " (its last \(shown.count) of \(log.count) lines)" : ""
    return """
      sequence \(sequence), seed 0x\(String(seed, radix: 16)): \(world.settings)
      \(world.violations.prefix(reportedViolations).joined(separator: "\n"))
      replay: TRAITKIT_SEED=0x\(String(RandomPassEnvironment.seed, radix: 16)) \
      TRAITKIT_FIRST_SEQUENCE=\(sequence) TRAITKIT_SOAK_SEQUENCES=\(sequence + 1) \
      TRAITKIT_SOAK_STEPS=\(world.step) swift test --filter LegacyRandomPassTests/randomSequences
      log of step \(world.step)\(omitted):
      \(shown.map { "  " + $0 }.joined(separator: "\n"))
      """
  }
}
