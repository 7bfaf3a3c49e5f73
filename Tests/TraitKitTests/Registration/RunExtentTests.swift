import Testing
import TraitKit

// A delivery calls the registrations of a node that share a baseline and observe the same traits
// in a run (see DeliveryRunTests). These tests run several passes over one node, so that what a
// pass learns about a run, such as where it ends, could serve the next one too; between passes,
// and during them, they cancel registrations, make new ones, grow the table or compact it, and
// let targets go. Whatever happens, each pass calls each live registration made before it whose
// trait changed once, in the order they were made, with the value it last heard of, and counts
// exactly those calls.

@Suite("Runs across passes: cancelled, added and moved registrations")
struct RunExtentTests {
  /// A trait the registrations here observe; the passes move it through its three values in
  /// turn, the default first.
  enum ObservedTrait: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case sizeClass
    case style

    /// The trait to register for.
    var type: TraitKit.Trait {
      switch self {
      case .sizeClass: TraitHorizontalSizeClass.self
      case .style: TraitUserInterfaceStyle.self
      }
    }

    /// The names of the trait's values, as a log shows them, by index.
    var valueNames: [String] {
      switch self {
      case .sizeClass: UserInterfaceSizeClass.allCases.map { "\($0)" }
      case .style: UserInterfaceStyle.allCases.map { "\($0)" }
      }
    }

    /// The index of the trait's value in `collection`.
    func index(in collection: TraitCollection) -> Int {
      switch self {
      case .sizeClass: collection.horizontalSizeClass.rawValue
      case .style: collection.userInterfaceStyle.rawValue
      }
    }

    /// Sets the trait to its value at `index` in `node`'s overrides.
    func write(_ index: Int, at node: TraitNode) {
      switch self {
      case .sizeClass:
        node.traitOverrides.horizontalSizeClass = UserInterfaceSizeClass.allCases[index]
      case .style: node.traitOverrides.userInterfaceStyle = UserInterfaceStyle.allCases[index]
      }
    }

    var testDescription: String { rawValue }
  }

  /// Where in a node's registrations a test acts.
  enum Place: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case first
    case second
    case middle
    case penultimate
    case last

    /// The place's index among `count` registrations.
    func index(among count: Int) -> Int {
      switch self {
      case .first: 0
      case .second: 1
      case .middle: count / 2
      case .penultimate: count - 2
      case .last: count - 1
      }
    }

    var testDescription: String { rawValue }
  }

  // MARK: - Cancelled between passes

  @Test(
    "a registration cancelled between passes is skipped by the next ones, which call the rest once",
    arguments: [12, 33],
    Place.allCases
  )
  func cancelledBetweenPasses(count: Int, place: Place) {
    let fixture = RunFixture()
    let names = fixture.registerSizeClass(count)
    fixture.expectSizeClassPass(calling: names)

    let cancelled = names[place.index(among: count)]
    fixture.cancel(cancelled)

    let rest = names.filter { $0 != cancelled }
    for _ in 0..<3 { fixture.expectSizeClassPass(calling: rest) }
    #expect(fixture.graph.statistics.liveRegistrations == count - 1)
  }

  /// Which registrations a test cancels at once.
  enum CancelPattern: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case everyThird
    case everyOther
    case firstHalf
    case secondHalf
    case allButTheEnds

    /// Whether the pattern cancels the registration at `index` of `count`.
    func cancels(_ index: Int, of count: Int) -> Bool {
      switch self {
      case .everyThird: index % 3 == 0
      case .everyOther: index % 2 == 1
      case .firstHalf: index < count / 2
      case .secondHalf: index >= count / 2
      case .allButTheEnds: index != 0 && index != count - 1
      }
    }

    var testDescription: String { rawValue }
  }

  @Test(
    "registrations cancelled between passes, twice, leave the others to be called once each",
    arguments: CancelPattern.allCases
  )
  func severalCancelledBetweenPasses(pattern: CancelPattern) {
    let fixture = RunFixture()
    let names = fixture.registerSizeClass(24)
    fixture.expectSizeClassPass(calling: names)

    var rest = names.enumerated().filter { !pattern.cancels($0.offset, of: names.count) }
      .map(\.element)
    for name in names where !rest.contains(name) { fixture.cancel(name) }
    fixture.expectSizeClassPass(calling: rest)
    fixture.expectSizeClassPass(calling: rest)

    // Then every other one of those left, from the second on.
    for (index, name) in rest.enumerated() where index % 2 == 1 { fixture.cancel(name) }
    rest = rest.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)
    fixture.expectSizeClassPass(calling: rest)
    fixture.expectSizeClassPass(calling: rest)
    #expect(fixture.graph.statistics.liveRegistrations == rest.count)
  }

  // MARK: - Cancelled during a run

  @Test(
    "a handler that cancels later registrations of its run spares them that pass and the next",
    arguments: [
      (canceller: 0, cancelled: [1]),
      (canceller: 0, cancelled: [11]),
      (canceller: 3, cancelled: [4]),
      (canceller: 4, cancelled: [11]),
      (canceller: 5, cancelled: [6, 7]),
      (canceller: 6, cancelled: [9]),
      (canceller: 10, cancelled: [11]),
      (canceller: 0, cancelled: [2, 5, 8, 11]),
      (canceller: 2, cancelled: Array(3..<12)),
    ]
  )
  func handlerCancelsLaterOnes(canceller: Int, cancelled: [Int]) {
    let fixture = RunFixture()
    let names = fixture.registerSizeClass(12)
    fixture.expectSizeClassPass(calling: names)

    fixture.nextCallActions["r\(canceller)"] = { fixture in
      for index in cancelled { fixture.cancel("r\(index)") }
    }
    let rest = names.enumerated().filter { !cancelled.contains($0.offset) }.map(\.element)
    fixture.expectSizeClassPass(calling: rest)
    #expect(fixture.graph.statistics.liveRegistrations == rest.count)

    fixture.expectSizeClassPass(calling: rest)
    fixture.expectSizeClassPass(calling: rest)
  }

  /// Which of the live registrations cancel themselves in each pass.
  enum OneShotPattern: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case first
    case middle
    case last
    case firstAndLast
    case everyOther

    /// The names among `live`, in order, whose handlers cancel themselves in the next pass.
    func doomed(among live: [String]) -> Set<String> {
      guard live.count > 1 else { return [] }
      switch self {
      case .first: return [live[0]]
      case .middle: return [live[live.count / 2]]
      case .last: return [live[live.count - 1]]
      case .firstAndLast: return [live[0], live[live.count - 1]]
      case .everyOther:
        return Set(live.enumerated().filter { $0.offset % 2 == 1 }.map(\.element))
      }
    }

    var testDescription: String { rawValue }
  }

  @Test(
    "handlers that cancel themselves as they are called shrink the run pass by pass",
    arguments: OneShotPattern.allCases
  )
  func handlersCancelThemselves(pattern: OneShotPattern) {
    let fixture = RunFixture()
    var live = fixture.registerSizeClass(20)
    fixture.expectSizeClassPass(calling: live)

    for _ in 0..<7 {
      let doomed = pattern.doomed(among: live)
      for name in doomed { fixture.nextCallActions[name] = { $0.cancel(name) } }
      // A handler that cancels itself has been called all the same.
      fixture.expectSizeClassPass(calling: live)
      live.removeAll { doomed.contains($0) }
      #expect(fixture.graph.statistics.liveRegistrations == live.count)
    }
    fixture.expectSizeClassPass(calling: live)
  }

  // MARK: - Added and moved

  /// Registrations a handler makes on its own node during a run.
  struct Growth: Sendable, CustomTestStringConvertible {
    /// The registrations on the node before: 12 fill a table of twelve, 13 leave one free.
    let count: Int
    /// How many the handler makes.
    let added: Int

    static let all = [12, 13].flatMap { count in
      [1, 5, 40].map { Growth(count: count, added: $0) }
    }

    var testDescription: String { "\(added) more on \(count)" }
  }

  @Test(
    "a handler that grows its table in a run: the rest called once, the new ones in later passes",
    arguments: [Place.first, .middle, .last],
    Growth.all
  )
  func handlerGrowsTheTableDuringARun(registrar: Place, growth: Growth) {
    let fixture = RunFixture()
    let names = fixture.registerSizeClass(growth.count)
    let registrarName = names[registrar.index(among: growth.count)]
    fixture.expectSizeClassPass(calling: names)

    // The new registrations are made at the collection the pass moves to, their baseline: that
    // pass has nothing to tell them.
    fixture.nextCallActions[registrarName] = { fixture in
      _ = fixture.registerSizeClass(growth.added, prefix: "a")
    }
    fixture.expectSizeClassPass(calling: names)
    let first = (0..<growth.added).map { "a\($0)" }
    #expect(fixture.graph.statistics.liveRegistrations == growth.count + growth.added)
    fixture.expectSizeClassPass(calling: names + first)

    fixture.nextCallActions[registrarName] = { fixture in
      _ = fixture.registerSizeClass(growth.added, prefix: "b")
    }
    fixture.expectSizeClassPass(calling: names + first)
    let second = (0..<growth.added).map { "b\($0)" }
    fixture.expectSizeClassPass(calling: names + first + second)
    fixture.expectSizeClassPass(calling: names + first + second)
  }

  /// When the registrations of `registrationsMadeBetweenPasses` are made.
  enum Timing: String, Sendable, CaseIterable, CustomTestStringConvertible {
    /// Before the change: the pass tells them of it.
    case beforeTheChange
    /// After the change, before the pass: they were made at the new collection.
    case afterTheChange

    var testDescription: String { rawValue }
  }

  @Test(
    "registrations made between passes join the others from the first change they did not see",
    arguments: Timing.allCases,
    [1, 4, 40]
  )
  func registrationsMadeBetweenPasses(timing: Timing, added: Int) {
    let fixture = RunFixture()
    let names = fixture.registerSizeClass(12)
    fixture.expectSizeClassPass(calling: names)

    let new = (0..<added).map { "n\($0)" }
    switch timing {
    case .beforeTheChange:
      _ = fixture.registerSizeClass(added, prefix: "n")
      fixture.expectSizeClassPass(calling: names + new)
    case .afterTheChange:
      let move = fixture.passChangingSizeClass {
        _ = fixture.registerSizeClass(added, prefix: "n")
      }
      fixture.expectLastPass(move.entries(names))
    }
    fixture.expectSizeClassPass(calling: names + new)
    fixture.expectSizeClassPass(calling: names + new)
  }

  @Test(
    "after a compaction of more than half tombstones, the next passes call each one left once",
    arguments: [16, 20, 21, 30, 39]
  )
  func compactionBetweenPasses(cancelled: Int) {
    // Forty registrations; more than twenty tombstones compact the table as the twenty-first is
    // made, moving the registrations left to the front, and the cancels after it leave
    // tombstones among them again. Twenty or fewer compact nothing.
    let fixture = RunFixture()
    let names = fixture.registerSizeClass(40)
    fixture.expectSizeClassPass(calling: names)

    // The even ones first, then the odd ones.
    let order = names.indices.sorted { ($0 % 2, $0) < ($1 % 2, $1) }.map { names[$0] }
    let gone = order.prefix(cancelled)
    for name in gone { fixture.cancel(name) }
    var rest = names.filter { !gone.contains($0) }
    fixture.expectSizeClassPass(calling: rest)
    fixture.expectSizeClassPass(calling: rest)
    #expect(fixture.graph.statistics.liveRegistrations == rest.count)

    // A registration that moved is cancelled through its token, and new ones follow the rest.
    if rest.count > 1 {
      fixture.cancel(rest[rest.count / 2])
      rest.remove(at: rest.count / 2)
    }
    let new = fixture.registerSizeClass(3, prefix: "n")
    fixture.expectSizeClassPass(calling: rest + new)
    fixture.expectSizeClassPass(calling: rest + new)
    #expect(fixture.graph.statistics.liveRegistrations == rest.count + 3)
  }

  @Test(
    "a registration into a full table with tombstones compacts it; the next passes call each once",
    arguments: [[2, 5, 8], [0, 1, 2], [9, 10, 11], [0, 6, 11]]
  )
  func registrationCompactsAFullTable(cancelled: [Int]) {
    // Twelve registrations fill a table of twelve; with a quarter of them tombstones, the next
    // registration compacts the table rather than grow it.
    let fixture = RunFixture()
    let names = fixture.registerSizeClass(12)
    fixture.expectSizeClassPass(calling: names)

    for index in cancelled { fixture.cancel(names[index]) }
    let rest = names.enumerated().filter { !cancelled.contains($0.offset) }.map(\.element)
    fixture.expectSizeClassPass(calling: rest)

    let new = fixture.registerSizeClass(1, prefix: "n")
    fixture.expectSizeClassPass(calling: rest + new)
    fixture.expectSizeClassPass(calling: rest + new)
    #expect(fixture.graph.statistics.liveRegistrations == 10)
  }

  // MARK: - Two traits

  /// Blocks of registrations, each of one trait, in the order they are made.
  struct Blocks: Sendable, CustomTestStringConvertible {
    let blocks: [(trait: ObservedTrait, count: Int)]

    static let all = [
      Blocks(blocks: [(.sizeClass, 10), (.style, 10)]),
      Blocks(blocks: [(.sizeClass, 10), (.style, 10), (.sizeClass, 10), (.style, 10)]),
      Blocks(blocks: [(.sizeClass, 8), (.style, 1), (.sizeClass, 8), (.style, 1), (.sizeClass, 8)]),
      Blocks(blocks: [(.style, 12), (.sizeClass, 3), (.style, 3), (.sizeClass, 12)]),
      Blocks(blocks: (0..<20).map { ($0 % 2 == 0 ? .sizeClass : .style, 1) }),
    ]

    var testDescription: String {
      blocks.map { "\($0.count) \($0.trait)" }.joined(separator: ", ")
    }
  }

  @Test(
    "blocks of registrations of two traits, one or both changed, are each called once per change",
    arguments: Blocks.all
  )
  func blocksOfTwoTraits(layout: Blocks) throws {
    // After the third pass, the first block of the style goes: its tombstones lie between blocks
    // of the size class, or at the start.
    let fixture = RunFixture()
    var live: [(name: String, trait: ObservedTrait)] = []
    for (block, (trait, count)) in layout.blocks.enumerated() {
      for _ in 0..<count {
        let name = "\(trait == .sizeClass ? "s" : "y")\(live.count)"
        fixture.register(name, trait, block: block)
        live.append((name, trait))
      }
    }
    expectPasses(fixture, of: live, changing: [[.sizeClass], [.style], [.sizeClass, .style]])

    let firstStyleBlock = fixture.names(
      inBlock: try #require(layout.blocks.firstIndex { $0.trait == .style })
    )
    for name in firstStyleBlock { fixture.cancel(name) }
    live.removeAll { firstStyleBlock.contains($0.name) }
    expectPasses(fixture, of: live, changing: [[.sizeClass, .style], [.style], [.sizeClass]])
  }

  /// How `compactionBringsAnotherTraitAfterARun` compacts the table.
  enum Compaction: String, Sendable, CaseIterable, CustomTestStringConvertible {
    /// A handler cancels during a pass: the table compacts as the pass leaves the node.
    case afterThePassThatCancelled
    /// Cancels between passes leave more than half of more than 32 entries tombstones.
    case asTombstonesPassHalf
    /// A registration finds the table full, with a quarter of tombstones.
    case asARegistrationFindsTheTableFull

    var testDescription: String { rawValue }
  }

  @Test(
    "a compaction that moves a registration of another trait behind a run keeps it out of the run",
    arguments: Compaction.allCases
  )
  func compactionBringsAnotherTraitAfterARun(compaction: Compaction) {
    // The first registration of the style block goes: once the table compacts, the second
    // follows the last of the size class, whose run must end before it as it did before it.
    let fixture = RunFixture()
    let (sizeClassCount, styleCount) =
      switch compaction {
      case .afterThePassThatCancelled: (10, 10)
      case .asTombstonesPassHalf: (20, 24)
      case .asARegistrationFindsTheTableFull: (8, 4)
      }
    let sizeClass = (0..<sizeClassCount).map { fixture.register("s\($0)").name }
    let style = (0..<styleCount).map { fixture.register("y\($0)", .style).name }
    var live: [(name: String, trait: ObservedTrait)] =
      sizeClass.map { ($0, .sizeClass) } + style.map { ($0, .style) }
    expectPasses(fixture, of: live, changing: [[.sizeClass], [.style]])

    var cancelled = ["y0"]
    switch compaction {
    case .afterThePassThatCancelled:
      fixture.nextCallActions["s3"] = { $0.cancel("y0") }
    case .asTombstonesPassHalf:
      // Twenty-three of forty-four: all the style's but y1.
      cancelled += style.dropFirst(2)
      for name in cancelled { fixture.cancel(name) }
    case .asARegistrationFindsTheTableFull:
      // Three of twelve, then one more registration.
      cancelled += ["s1", "s2"]
      for name in cancelled { fixture.cancel(name) }
      fixture.register("n")
      live.append(("n", .sizeClass))
    }
    // NB: y0 observes the style, which the pass that may cancel it leaves alone.
    live.removeAll { cancelled.contains($0.name) }
    expectPasses(
      fixture,
      of: live,
      changing: [[.sizeClass], [.sizeClass], [.style], [.sizeClass, .style], [.sizeClass]]
    )
  }

  /// Runs a pass for each of `changes`, and checks that each calls, once, in order and with the
  /// values before, the registrations among `live` whose trait it changed, and counts them.
  private func expectPasses(
    _ fixture: RunFixture,
    of live: [(name: String, trait: ObservedTrait)],
    changing changes: [[ObservedTrait]],
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    for changed in changes {
      let moves = fixture.pass(changing: changed)
      fixture.expectLastPass(
        live.compactMap { registration in
          moves[registration.trait].map { "\(registration.name) \($0.from)→\($0.to)" }
        },
        sourceLocation: sourceLocation
      )
    }
  }

  // MARK: - Targets

  /// How a target-action registration goes between passes.
  enum TargetLoss: String, Sendable, CaseIterable, CustomTestStringConvertible {
    /// Its target is released: the next pass skips and cancels it.
    case released
    /// Its token is cancelled.
    case cancelled

    var testDescription: String { rawValue }
  }

  @Test(
    "a run of handlers and target-actions skips those whose targets went, in the passes after",
    arguments: [[0], [6], [13], [2, 3], [8, 9, 10], [0, 13]],
    TargetLoss.allCases
  )
  func targetsLostBetweenPasses(lost: [Int], loss: TargetLoss) {
    // Handlers are kept in their entries, target-actions in boxes: every pattern of the two
    // follows one another, and the targets lost lie at both ends and in the middle.
    let fixture = RunFixture()
    let isTarget = [
      true, false, true, true, false, false, true, false, true, true, true, false, false, true,
    ]
    var targets: [Int: RunFixture.Target] = [:]
    let names = isTarget.enumerated().map { index, usesTarget -> String in
      guard usesTarget else { return fixture.register("r\(index)").name }
      let target = RunFixture.Target("t\(index)", log: fixture.log)
      targets[index] = target
      fixture.register(target)
      return target.name
    }
    fixture.expectSizeClassPass(calling: names)

    for index in lost {
      switch loss {
      case .released: targets[index] = nil
      case .cancelled: fixture.cancel(names[index])
      }
    }
    let rest = names.enumerated().filter { !lost.contains($0.offset) }.map(\.element)
    fixture.expectSizeClassPass(calling: rest)
    #expect(fixture.graph.statistics.liveRegistrations == rest.count)
    fixture.expectSizeClassPass(calling: rest)
    fixture.expectSizeClassPass(calling: rest)
    withExtendedLifetime(targets) {}
  }

  // MARK: - Value changes

  /// What a handler of the run writes, once, in `valueChangedInOnePass`.
  struct InRunWrite: Sendable, CustomTestStringConvertible {
    /// Which value it writes.
    enum Value: String, Sendable, CaseIterable {
      /// The size class the pass moves neither from nor to.
      case third
      /// The one the pass moves from: an undoing.
      case undoing
      /// The one the pass moves to: an equal write, which changes nothing.
      case same
    }

    let value: Value
    /// Whether it writes, as the passes do, in the node's own overrides, or in its parent's.
    let onTheNode: Bool

    static let all = [false, true].flatMap { onTheNode in
      Value.allCases.map { InRunWrite(value: $0, onTheNode: onTheNode) }
    }

    var testDescription: String { "\(value.rawValue) at the \(onTheNode ? "node" : "parent")" }
  }

  @Test(
    "a handler that changes the size class again in one pass leaves the passes after it as usual",
    arguments: [0, 5, 11],
    InRunWrite.all
  )
  func valueChangedInOnePass(writer: Int, write: InRunWrite) {
    let fixture = RunFixture()
    if write.onTheNode { fixture.valueOwner = fixture.node }
    let names = fixture.registerSizeClass(12)
    fixture.expectSizeClassPass(calling: names)
    fixture.expectSizeClassPass(calling: names)

    // From regular to unspecified; compact is the third.
    let values = ObservedTrait.sizeClass.valueNames
    let written =
      switch write.value {
      case .third: 1
      case .undoing: 2
      case .same: 0
      }
    fixture.nextCallActions["r\(writer)"] = { fixture in
      ObservedTrait.sizeClass.write(written, at: fixture.valueOwner)
    }
    let move = fixture.passChangingSizeClass()
    #expect(move.from == values[2] && move.to == values[0])
    // The registrations up to the writer heard of the pass's change, and hear of the write in
    // the next round; those after it compare the write with their own baseline.
    let heard = Array(names[...writer])
    let later = Array(names[(writer + 1)...])
    if write.value == .same {
      fixture.expectLastPass(move.entries(names))
    } else {
      fixture.expectLastPass(
        move.entries(heard)
          + (write.value == .undoing ? [] : later.map { "\($0) \(move.from)→\(values[written])" })
          + heard.map { "\($0) \(move.to)→\(values[written])" }
      )
    }

    fixture.expectSizeClassPass(calling: names)
    fixture.expectSizeClassPass(calling: names)
  }

  // MARK: - Another node

  /// The node whose handler, earlier in the pass, cancels registrations of the fixture's node.
  enum Canceller: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case parent
    case earlierSibling

    var testDescription: String { rawValue }
  }

  @Test(
    "registrations that another node's handler cancels earlier in the pass are not called in it",
    arguments: Canceller.allCases,
    [[0], [5], [11], [0, 11], [3, 6, 9], Array(1..<11)]
  )
  func cancelledByAnotherNodesHandler(canceller: Canceller, cancelled: [Int]) {
    let other = GTNode("other")
    let fixture =
      canceller == .parent ? RunFixture(parent: other) : RunFixture(after: other)
    let names = fixture.registerSizeClass(12)
    fixture.register("o", on: other)
    fixture.expectSizeClassPass(calling: ["o"] + names)

    fixture.nextCallActions["o"] = { fixture in
      for index in cancelled { fixture.cancel(names[index]) }
    }
    let rest = names.enumerated().filter { !cancelled.contains($0.offset) }.map(\.element)
    fixture.expectSizeClassPass(calling: ["o"] + rest)
    #expect(fixture.graph.statistics.liveRegistrations == 1 + rest.count)
    fixture.expectSizeClassPass(calling: ["o"] + rest)
    fixture.expectSizeClassPass(calling: ["o"] + rest)
  }

  // MARK: - Random

  @Test("random registrations, cancels and handler actions over passes call what a model says")
  func randomPassesMatchAModel() {
    let base: UInt64 = 0x5EED_0067
    var fired = RunScenario.Fired()
    for iteration in 0..<200 {
      let seed = RMRandom.seed(base: base, index: iteration)
      var scenario = RunScenario(seed: seed)
      if let failure = scenario.run() {
        Issue.record(
          """
          iteration \(iteration), seed 0x\(String(seed, radix: 16)) \
          (base 0x\(String(base, radix: 16))): \(failure)
          """
        )
        return
      }
      fired.add(scenario.fired)
    }
    // The scenarios did what they are for: every action ran, many times.
    #expect(fired.cancels > 100)
    #expect(fired.selfCancels > 100)
    #expect(fired.registrations > 100)
    #expect(fired.writes > 100)
    #expect(fired.rounds > 100)
  }
}

// MARK: - Fixtures

/// A node under a graph's root whose registrations each log a call as their name and the value
/// of the trait they observe before and after it: `r3 compact→regular`.
private final class RunFixture {
  typealias ObservedTrait = RunExtentTests.ObservedTrait
  /// A target that logs its calls as the fixture's registrations do.
  typealias Target = DeliveryRunTests.SizeClassLoggingTarget

  /// What a pass did to a trait: the names of the values it moved from and to.
  struct Move {
    let from: String
    let to: String

    /// The entries `names` log when each hears of the move.
    func entries(_ names: [String]) -> [String] { names.map { "\($0) \(from)→\(to)" } }
  }

  let graph = TraitGraph()
  let node = GTNode("node")
  let log = GTLog()
  /// What the handler of the registration of that name does after it logs, on its next call.
  var nextCallActions: [String: (RunFixture) -> Void] = [:]
  /// The node whose overrides the passes write: the root unless a test says otherwise.
  lazy var valueOwner: TraitNode = graph.root
  /// The number of the running pass, or of the last one: 1 during the first.
  private(set) var passNumber = 0
  /// The registrations by name: the node they are on, and the token.
  private var registrations: [String: (node: TraitNode, token: TraitChangeRegistration)] = [:]
  /// The names of the registrations made with a block number, by number.
  private var blocks: [Int: [String]] = [:]

  /// A graph with `node` under `parent`, which is under the root, or under the root, after
  /// `sibling` there.
  init(parent: GTNode? = nil, after sibling: GTNode? = nil) {
    let container = parent ?? graph.root
    if let parent { graph.root.addTraitChild(parent) }
    if let sibling { container.addTraitChild(sibling) }
    container.addTraitChild(node)
  }

  /// Registers a handler named `name` for `trait` on `node`, or the fixture's node.
  @discardableResult
  func register(
    _ name: String,
    _ trait: ObservedTrait = .sizeClass,
    on node: GTNode? = nil,
    block: Int? = nil
  ) -> (name: String, token: TraitChangeRegistration) {
    let owner = node ?? self.node
    let token = owner.registerForTraitChanges([trait.type]) {
      [unowned self] (node: GTNode, previous: TraitCollection) in
      let from = trait.valueNames[trait.index(in: previous)]
      let to = trait.valueNames[trait.index(in: node.traitCollection)]
      log.append("\(name) \(from)→\(to)")
      if let action = nextCallActions.removeValue(forKey: name) { action(self) }
    }
    registrations[name] = (owner, token)
    if let block { blocks[block, default: []].append(name) }
    return (name, token)
  }

  /// Registers `target`'s size class action on the fixture's node, under the target's name.
  func register(_ target: RunFixture.Target) {
    registrations[target.name] = (
      node,
      node.registerForTraitChanges(
        [TraitHorizontalSizeClass.self],
        target: target,
        action: RunFixture.Target.sizeClassDidChange
      )
    )
  }

  /// Registers `count` handlers for the size class on the fixture's node, named `r0`, `r1`…,
  /// or with another prefix; returns their names.
  func registerSizeClass(_ count: Int, prefix: String = "r") -> [String] {
    (0..<count).map { register("\(prefix)\($0)").name }
  }

  /// The names of the registrations made with block number `block`.
  func names(inBlock block: Int) -> [String] { blocks[block] ?? [] }

  /// Cancels the registration named `name`.
  func cancel(_ name: String) {
    guard let registration = registrations[name] else { return }
    registration.node.unregisterForTraitChanges(registration.token)
  }

  /// Moves each of `traits` to its next value, or its default after the last, in the overrides
  /// of `valueOwner`; runs `body`, then the pass; returns each trait's move.
  @discardableResult
  func pass(
    changing traits: [ObservedTrait],
    beforeThePass body: () -> Void = {}
  ) -> [ObservedTrait: Move] {
    log.removeAll()
    let collection = node.traitCollection
    var moves: [ObservedTrait: Move] = [:]
    for trait in traits {
      let from = trait.index(in: collection)
      let to = (from + 1) % trait.valueNames.count
      trait.write(to, at: valueOwner)
      moves[trait] = Move(from: trait.valueNames[from], to: trait.valueNames[to])
    }
    body()
    runPass()
    return moves
  }

  /// ``pass(changing:beforeThePass:)`` for the size class.
  @discardableResult
  func passChangingSizeClass(beforeThePass body: () -> Void = {}) -> Move {
    pass(changing: [.sizeClass], beforeThePass: body)[.sizeClass]!
  }

  /// Runs the graph's pass, counting it.
  func runPass() {
    passNumber += 1
    graph.updateTraitsIfNeeded()
  }

  /// Checks that the last pass logged exactly `entries` and counted as many calls.
  func expectLastPass(
    _ entries: [String],
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(log.entries == entries, "pass \(passNumber)", sourceLocation: sourceLocation)
    #expect(
      graph.statistics.lastPass.callbacksDelivered == entries.count,
      "pass \(passNumber)",
      sourceLocation: sourceLocation
    )
  }

  /// Runs a pass that moves the size class on, and checks that it called exactly `names`, in
  /// this order, each once with the value before, and counted them.
  func expectSizeClassPass(
    calling names: [String],
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let move = passChangingSizeClass()
    expectLastPass(move.entries(names), sourceLocation: sourceLocation)
  }
}

/// One seeded scenario of `randomPassesMatchAModel`: registrations of one or two traits in
/// blocks on one node, then passes, with cancels and registrations between them and actions in
/// handlers, each pass checked against a model.
///
/// The model keeps each registration with the value it last heard of. A pass is rounds: each
/// round goes through the registrations there at its start, in order, and calls each live one
/// whose trait's value differs from the one it last heard of, which its handler may change
/// (a write), ending another's or its own registration, or making new ones, which hear of the
/// values they were made at; a round after which a handler wrote a new value is followed by
/// another.
private struct RunScenario {
  typealias ObservedTrait = RunExtentTests.ObservedTrait

  /// A registration as the model sees it.
  struct Entry {
    let name: String
    let trait: ObservedTrait
    /// The index of the value it last heard of.
    var seen: Int
    var isLive = true
  }

  /// What a handler does after it logs, on its first call in a pass.
  enum Action {
    case cancel(String)
    case cancelSelf
    case register([String], ObservedTrait)
    case write(ObservedTrait, Int)
  }

  /// How often the scenarios' handlers ran each action, and passes had more than one round.
  struct Fired {
    var cancels = 0
    var selfCancels = 0
    var registrations = 0
    var writes = 0
    var rounds = 0

    mutating func add(_ other: Fired) {
      cancels += other.cancels
      selfCancels += other.selfCancels
      registrations += other.registrations
      writes += other.writes
      rounds += other.rounds
    }
  }

  private var random: RMRandom
  private let fixture = RunFixture()
  private var model: [Entry] = []
  private var values: [ObservedTrait: Int] = [.sizeClass: 0, .style: 0]
  private var made = 0
  private(set) var fired = Fired()

  init(seed: UInt64) {
    random = RMRandom(seed: seed)
  }

  /// Runs the scenario; returns what first differed from the model, if anything.
  mutating func run() -> String? {
    let traits = random.chance(50) ? [ObservedTrait.sizeClass] : ObservedTrait.allCases
    let count = 8 + random.below(53)
    while model.count < count {
      registerBlock(of: random.pick(traits), count: min(1 + random.below(16), count - model.count))
    }
    for pass in 1...6 {
      let heavy = random.chance(10)
      for index in model.indices where model[index].isLive && random.chance(heavy ? 60 : 10) {
        fixture.cancel(model[index].name)
        model[index].isLive = false
      }
      if random.chance(30) {
        registerBlock(of: random.pick(traits), count: 1 + random.below(12))
      }
      var changing = traits.filter { _ in random.chance(60) }
      if changing.isEmpty { changing = [random.pick(traits)] }
      for trait in changing {
        values[trait] = (values[trait, default: 0] + 1 + random.below(2)) % 3
        trait.write(values[trait, default: 0], at: fixture.graph.root)
      }
      // Made after the change, before the pass: at the new values.
      if random.chance(20) {
        registerBlock(of: random.pick(traits), count: 1 + random.below(12))
      }
      let plan = planActions(traits: traits)
      fixture.log.removeAll()
      fixture.nextCallActions = Dictionary(
        uniqueKeysWithValues: plan.map { name, action in (name, Self.perform(action, by: name)) }
      )
      fixture.runPass()
      fixture.nextCallActions = [:]
      let expected = simulatePass(plan)

      let logged = fixture.log.entries
      if logged != expected {
        let first = zip(logged, expected).prefix { $0 == $1 }.count
        return "pass \(pass), from entry \(first) on: expected \(expected), logged \(logged)"
      }
      let calls = fixture.graph.statistics.lastPass.callbacksDelivered
      if calls != expected.count {
        return "pass \(pass): \(expected.count) calls, counted \(calls)"
      }
      let live = model.filter(\.isLive).count
      let liveRegistrations = fixture.graph.statistics.liveRegistrations
      if liveRegistrations != live {
        return "pass \(pass): \(live) live registrations, counted \(liveRegistrations)"
      }
    }
    return nil
  }

  /// Makes `count` registrations of `trait`, at the values as they are.
  private mutating func registerBlock(of trait: ObservedTrait, count: Int) {
    for name in newNames(count, trait) {
      fixture.register(name, trait)
      model.append(Entry(name: name, trait: trait, seen: values[trait, default: 0]))
    }
  }

  /// `count` names not used yet, for registrations of `trait`.
  private mutating func newNames(_ count: Int, _ trait: ObservedTrait) -> [String] {
    defer { made += count }
    return (made..<made + count).map { "\(trait == .sizeClass ? "s" : "y")\($0)" }
  }

  /// The actions of some of the live registrations' handlers in the next pass.
  private mutating func planActions(traits: [ObservedTrait]) -> [String: Action] {
    let live = model.filter(\.isLive).map(\.name)
    var plan: [String: Action] = [:]
    for name in live where random.chance(10) {
      switch random.below(100) {
      case ..<30 where live.count > 1:
        var target = random.pick(live)
        while target == name { target = random.pick(live) }
        plan[name] = .cancel(target)
      case ..<55:
        plan[name] = .cancelSelf
      case ..<80:
        let trait = random.pick(traits)
        let count = random.chance(20) ? 1 + random.below(20) : 1
        plan[name] = .register(newNames(count, trait), trait)
      default:
        plan[name] = .write(random.pick(traits), random.below(3))
      }
    }
    return plan
  }

  /// What the handler of the registration `name` does for `action`.
  private static func perform(_ action: Action, by name: String) -> (RunFixture) -> Void {
    switch action {
    case .cancel(let target):
      return { $0.cancel(target) }
    case .cancelSelf:
      return { $0.cancel(name) }
    case .register(let names, let trait):
      return { fixture in for name in names { fixture.register(name, trait) } }
    case .write(let trait, let value):
      return { trait.write(value, at: $0.graph.root) }
    }
  }

  /// The model's pass, with the handlers' actions `plan`: what it logs, in order.
  private mutating func simulatePass(_ plan: [String: Action]) -> [String] {
    var expected: [String] = []
    var plan = plan
    var rounds = 0
    var wrote: Bool
    repeat {
      wrote = false
      rounds += 1
      for index in 0..<model.count where model[index].isLive {
        let entry = model[index]
        let current = values[entry.trait, default: 0]
        guard current != entry.seen else { continue }
        let valueNames = entry.trait.valueNames
        expected.append("\(entry.name) \(valueNames[entry.seen])→\(valueNames[current])")
        model[index].seen = current
        guard let action = plan.removeValue(forKey: entry.name) else { continue }
        switch action {
        case .cancel(let target):
          fired.cancels += 1
          if let position = model.firstIndex(where: { $0.name == target }) {
            model[position].isLive = false
          }
        case .cancelSelf:
          fired.selfCancels += 1
          model[index].isLive = false
        case .register(let names, let trait):
          fired.registrations += 1
          for name in names {
            model.append(Entry(name: name, trait: trait, seen: values[trait, default: 0]))
          }
        case .write(let trait, let value):
          fired.writes += 1
          if values[trait] != value {
            values[trait] = value
            wrote = true
          }
        }
      }
    } while wrote
    if rounds > 1 { fired.rounds += 1 }
    return expected
  }
}
