import Foundation
import Testing

@testable import TraitKitBenchmarks

/// A result with one sample, so that its median is `median`.
private func result(
  _ scenario: String,
  _ contender: Contender,
  _ params: [(String, Int)],
  median: Double,
  floorMedian: Double,
  allocations: Double? = nil,
  visited: Double? = nil,
  bytes: Int? = nil,
  bytesPerUnit: Double? = nil
) -> PointResult {
  PointResult(
    scenarioID: scenario,
    scenarioName: scenario,
    params: params,
    contender: contender,
    unit: "op",
    nanoseconds: [median],
    callbacksPerOperation: 0,
    allocationsPerOperation: allocations,
    bytes: bytes,
    nodesVisitedPerOperation: visited,
    ratioToFloor: median / floorMedian,
    bytesPerUnit: bytesPerUnit
  )
}

/// The verdicts on `results` for `scenario`, by the figure they judge.
private func verdicts(
  _ results: [PointResult],
  _ scenario: String,
  failures: [String] = []
) -> [String: TargetVerdict] {
  let judged = Targets.judge(results, failures: failures).filter { $0.scenario == scenario }
  return Dictionary(judged.map { ("\($0.figure) @ \($0.point)", $0) }) { first, _ in first }
}

@Suite("traitkit-bench targets")
struct TargetsTests {
  @Test("S1 is judged at K ≥ 100 only: ratio to the floor and speed-ups over the peers")
  func fanOut() throws {
    var results: [PointResult] = []
    for (k, traitKit, notification) in [(16, 5.0, 8.0), (256, 1.4, 8), (4096, 1.6, 7)] {
      results += [
        result("S1", .floor, [("K", k)], median: 1, floorMedian: 1),
        result("S1", .traitkit, [("K", k)], median: traitKit, floorMedian: 1),
        result("S1", .notificationCenter, [("K", k)], median: notification, floorMedian: 1),
        result("S1", .observation, [("K", k)], median: 100, floorMedian: 1),
      ]
    }
    let judged = verdicts(results, "S1")
    #expect(judged.count == 6)
    #expect(!judged.keys.contains { $0.hasSuffix("K=16") })

    let k256 = try #require(judged["traitkit ÷ floor per callback, K ≥ 100 @ K=256"])
    #expect(k256.met && k256.measured == 1.4 && k256.boundDescription == "≤ 1.5")
    let k4096 = try #require(judged["traitkit ÷ floor per callback, K ≥ 100 @ K=4096"])
    #expect(!k4096.met)
    // 8 / 1.4 = 5.7 ≥ 5 and 100 / 1.4 = 71 ≥ 50; at K=4096, 7 / 1.6 = 4.4 and 100 / 1.6 = 62.5.
    let notification = try #require(judged["notificationcenter ÷ traitkit @ K=256"])
    #expect(notification.met && !notification.atMost)
    #expect(abs(notification.measured - 8 / 1.4) < 1e-12)
    let slowPeer = try #require(judged["notificationcenter ÷ traitkit @ K=4096"])
    #expect(!slowPeer.met)
    #expect(try #require(judged["observation ÷ traitkit @ K=4096"]).met)
  }

  @Test("each scenario's target reads the figure the issue names")
  func figures() throws {
    let churn = [("R", 50_000), ("nodes", 11_111)]
    let results = [
      result("S3", .floor, [("D", 64)], median: 1, floorMedian: 1),
      result("S3", .traitkit, [("D", 64)], median: 3, floorMedian: 1),
      result("S3", .floor, [("D", 8_192)], median: 1, floorMedian: 1),
      result("S3", .traitkit, [("D", 8_192)], median: 1.5, floorMedian: 1),
      result("S4", .floor, [("mode", 0)], median: 1, floorMedian: 1, visited: 1_112),
      result("S4", .traitkit, [("mode", 0)], median: 1.5, floorMedian: 1, visited: 1_113),
      result("S6", .floor, churn, median: 100, floorMedian: 100),
      result("S6", .traitkit, churn, median: 190, floorMedian: 100),
      result("S6", .notificationCenter, churn, median: 2_000, floorMedian: 100),
      result("S6", .floor, [("dealloc", 111), ("R", 999)], median: 1, floorMedian: 1),
      result("S6", .traitkit, [("dealloc", 111), ("R", 999)], median: 9, floorMedian: 1),
      result("S9", .floor, [("nodes", 100)], median: 10, floorMedian: 10),
      result("S9", .traitkit, [("nodes", 100)], median: 13, floorMedian: 10),
      result("S9", .traitkitLegacy, [("nodes", 100)], median: 10, floorMedian: 10),
      result("S10", .floor, [("registrations", 100)], median: 1, floorMedian: 1, bytes: 86),
      result("S10", .traitkit, [("registrations", 100)], median: 1, floorMedian: 1, bytes: 65),
      result("S10", .floor, [("nodes", 100)], median: 1, floorMedian: 1, bytes: 96),
      result("S10", .traitkit, [("nodes", 100)], median: 1, floorMedian: 1, bytes: 206),
    ]

    // S3 at the deepest chain only.
    let chain = verdicts(results, "S3")
    #expect(chain.count == 1)
    #expect(try #require(chain["traitkit ÷ floor, deepest chain @ D=8192"]).met)
    // S4: one node more than the floor visits is a miss.
    let shadowing = try #require(verdicts(results, "S4").values.first)
    #expect(!shadowing.met && shadowing.measured == 1_113 && shadowing.bound == 1_112)
    // S6: the churn point, not the owner-deallocation one.
    let registrations = verdicts(results, "S6")
    #expect(registrations.count == 2)
    let churnVerdict = registrations["traitkit ÷ floor, register+cancel @ R=50000 nodes=11111"]
    #expect(try #require(churnVerdict).met)
    // S9: against the legacy adapter, not the floor.
    let parity = try #require(verdicts(results, "S9").values.first)
    #expect(abs(parity.measured - 1.3) < 1e-12 && !parity.met)
    // S10: bytes per registration only.
    let memory = verdicts(results, "S10")
    #expect(memory.count == 1)
    #expect(abs(try #require(memory.values.first).measured - 65.0 / 86) < 1e-12)
  }

  @Test(
    "allocation targets judge re-tracking and the worst delivery of all scenarios, when counted"
  )
  func allocations() throws {
    /// The results, with allocation counts or without them (as in a sanitizer build).
    func results(counted: Bool) -> [PointResult] {
      func count(_ allocations: Double) -> Double? { counted ? allocations : nil }
      return [
        result("S2", .floor, [("r", 4)], median: 1, floorMedian: 1, allocations: count(0)),
        result("S2", .traitkit, [("r", 4)], median: 1, floorMedian: 1, allocations: count(0.19)),
        result("S5", .traitkit, [("set", 4)], median: 1, floorMedian: 1, allocations: count(0)),
        result("S7", .floor, [("mode", 0)], median: 1, floorMedian: 1, allocations: count(0)),
        result("S7", .traitkit, [("mode", 0)], median: 1.5, floorMedian: 1, allocations: count(0)),
        result(
          "S7",
          .traitkit,
          [("mode", 1)],
          median: 1.5,
          floorMedian: 1,
          allocations: count(0.01)
        ),
      ]
    }
    let counted = results(counted: true)
    let delivery = try #require(verdicts(counted, "S1–S9").values.first)
    #expect(!delivery.met && delivery.measured == 0.19 && delivery.point == "S2 r=4")
    let tracking = verdicts(counted, "S7")
    #expect(tracking.count == 2)
    #expect(try #require(tracking["allocations per re-tracked layout @ mode=0"]).met)

    // Without allocation counts, neither is judged.
    let uncounted = results(counted: false)
    #expect(verdicts(uncounted, "S1–S9").isEmpty)
    #expect(verdicts(uncounted, "S7").count == 1)
  }

  @Test("S10 judges bytes per registration from the figures before they were rounded")
  func exactBytes() throws {
    let point = [("registrations", 100)]
    // Rounded, 55 ÷ 37 = 1.486 would meet the bound; exactly, 55.4 ÷ 36.6 = 1.514 does not.
    let results = [
      result("S10", .floor, point, median: 1, floorMedian: 1, bytes: 37, bytesPerUnit: 36.6),
      result("S10", .traitkit, point, median: 1, floorMedian: 1, bytes: 55, bytesPerUnit: 55.4),
    ]
    let verdict = try #require(verdicts(results, "S10").values.first)
    #expect(abs(verdict.measured - 55.4 / 36.6) < 1e-12)
    #expect(!verdict.met)
  }

  @Test("S5 is met unless the run saw a wrong callback count in TraitKit's S5 samples")
  func exactCounts() throws {
    let results = [result("S5", .traitkit, [("set", 4)], median: 1, floorMedian: 1)]
    #expect(try #require(verdicts(results, "S5").values.first).met)
    let wrong = verdicts(
      results,
      "S5",
      failures: ["S5 Registration.semanticSetBatch set=4 [traitkit]: saw 3 callbacks, expected 4"]
    )
    #expect(try #require(wrong.values.first).measured == 1)
    #expect(try #require(wrong.values.first).met == false)
    let elsewhere = verdicts(results, "S5", failures: ["S50 something: saw 3, expected 4"])
    #expect(try #require(elsewhere.values.first).met)
    // Another contender's wrong count is a failure of the run, not of TraitKit's target.
    let floor = verdicts(
      results,
      "S5",
      failures: ["S5 Registration.semanticSetBatch set=4 [floor]: saw 3 callbacks, expected 4"]
    )
    #expect(try #require(floor.values.first).met)
  }

  @Test("the memory-bound targets are S6's register+cancel, S7's tracked read, S8 with overrides")
  func memoryBoundTargets() {
    var results: [PointResult] = []
    for (scenario, params) in [
      ("S1", [("K", 256)]), ("S2", [("r", 1)]), ("S3", [("D", 8_192)]),
      ("S6", [("R", 50_000), ("nodes", 11_111)]), ("S7", [("mode", 0)]), ("S8", [("p", 0)]),
      ("S8", [("p", 10)]), ("S8", [("chain", 10)]),
    ] {
      results += [.floor, .traitkit, .notificationCenter].map { contender in
        result(scenario, contender, params, median: contender == .floor ? 1 : 3, floorMedian: 1)
      }
    }
    let judged = Targets.judge(results, failures: [])
    let memoryBound = judged.filter(\.isMemoryBound)
    #expect(memoryBound.map(\.scenario) == ["S6", "S7", "S8"])
    #expect(memoryBound.last?.point == "p=10")
    #expect(memoryBound.allSatisfy { $0.figure.contains("÷") && $0.atMost })
    #expect(judged.count > memoryBound.count)
  }

  @Test("a target whose contender the run left out is not judged")
  func missingContender() {
    let results = [
      result("S2", .floor, [("r", 1)], median: 1, floorMedian: 1),
      result("S2", .traitkit, [("r", 1)], median: 1.5, floorMedian: 1),
    ]
    let judged = verdicts(results, "S2")
    #expect(judged.count == 1)
    #expect(judged.keys.first == "traitkit ÷ floor, 1 of 32 traits observed @ r=1")
  }

  @Test("reports list the verdicts: a table with the count met, and JSON objects")
  func rendering() throws {
    let results = [
      result("S8", .floor, [("p", 10)], median: 10, floorMedian: 10),
      result("S8", .traitkit, [("p", 10)], median: 12, floorMedian: 10),
      result("S8", .floor, [("p", 50)], median: 10, floorMedian: 10),
      result("S8", .traitkit, [("p", 50)], median: 17, floorMedian: 10),
    ]
    let report = Report(
      host: .fixture(samples: 1),
      results: results,
      summaries: ["S8": "reads"],
      notes: [],
      targets: Targets.judge(results, failures: [])
    )
    for format in [OutputFormat.table, .markdown] {
      let text = report.render(format)
      let section = try #require(text.components(separatedBy: "Targets (").last)
      #expect(section.contains("1 of 2 targets met"))
      let rows = section.split(separator: "\n").filter { $0.contains("traitkit ÷ floor, read") }
      #expect(rows.count == 2)
      #expect(rows.contains { $0.contains("1.20") && $0.contains("yes") })
      #expect(rows.contains { $0.contains("1.70") && $0.contains("NO") })
    }
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(report.render(.json).utf8)) as? [String: Any]
    )
    let targets = try #require(object["targets"] as? [[String: Any]])
    #expect(targets.count == 2)
    let missed = try #require(targets.first { $0["point"] as? String == "p=50" })
    #expect(missed["met"] as? Bool == false)
    #expect(missed["comparison"] as? String == "<=")
    #expect(missed["bound"] as? Double == 1.5)
    #expect(abs((missed["measured"] as? Double ?? 0) - 1.7) < 1e-12)
    // CSV stays one row per result, with no targets.
    #expect(report.render(.csv).split(separator: "\n").count == 5)
  }
}
