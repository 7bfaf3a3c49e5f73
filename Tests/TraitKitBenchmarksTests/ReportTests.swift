import Foundation
import FoundationXML
import Testing

@testable import TraitKitBenchmarks

/// Two scenarios' results: S1 with three contenders at one point, S6 with two at another.
private func sampleReport() -> Report {
  func result(
    _ scenario: String,
    _ contender: Contender,
    _ params: [(String, Int)],
    _ nanoseconds: [Double],
    ratio: Double?,
    allocations: Double? = nil,
    bytes: Int? = nil
  ) -> PointResult {
    PointResult(
      scenarioID: scenario,
      scenarioName: scenario == "S1" ? "Registration.fanOut" : "Registration.churn",
      params: params,
      contender: contender,
      unit: scenario == "S1" ? "callback" : "register+cancel",
      nanoseconds: nanoseconds,
      callbacksPerOperation: scenario == "S1" ? 16 : 0,
      allocationsPerOperation: allocations,
      bytes: bytes,
      nodesVisitedPerOperation: nil,
      ratioToFloor: ratio
    )
  }
  let fanOut = [("K", 16)]
  let churn = [("R", 50_000), ("nodes", 11_111)]
  return Report(
    host: .fixture(samples: 3),
    results: [
      result("S1", .floor, fanOut, [2, 3, 4], ratio: 1, allocations: 0),
      result("S1", .traitkit, fanOut, [3, 4, 6], ratio: 4.0 / 3, allocations: 0),
      result("S1", .observation, fanOut, [300, 310, 320], ratio: 310.0 / 3),
      result("S6", .floor, churn, [100, 150, 200], ratio: 1, bytes: 86),
      result("S6", .traitkit, churn, [300, 400, 500], ratio: 400.0 / 150, bytes: 126),
    ],
    summaries: ["S1": "fan-out at one node", "S6": "registration churn"],
    notes: ["a note"]
  )
}

/// One `compare` workload: the floor, registrations and the legacy adapter, which wastes 30 of
/// its 40 callbacks per change.
private func comparisonReport() -> Report {
  func result(
    _ contender: Contender,
    _ nanoseconds: [Double],
    callbacks: Double,
    wasted: Double
  ) -> PointResult {
    PointResult(
      scenarioID: "theme",
      scenarioName: "Migration.appTheme",
      params: [("nodes", 597)],
      contender: contender,
      unit: "change",
      nanoseconds: nanoseconds,
      callbacksPerOperation: callbacks,
      allocationsPerOperation: 0,
      bytes: nil,
      nodesVisitedPerOperation: nil,
      ratioToFloor: nanoseconds[1] / 100,
      wastedCallbacksPerOperation: wasted
    )
  }
  return Report(
    host: .fixture(samples: 3),
    results: [
      result(.floor, [90, 100, 110], callbacks: 10, wasted: 0),
      result(.traitkit, [190, 200, 210], callbacks: 10, wasted: 0),
      result(.traitkitLegacy, [700, 800, 900], callbacks: 40, wasted: 30),
    ],
    summaries: ["theme": "an app theme"],
    notes: []
  )
}

@Suite("traitkit-bench reports")
struct ReportTests {
  @Test("a run's failures come first in the table and markdown, after the CSV rows, and in JSON")
  func failuresInEveryFormat() throws {
    let failure =
      "S1 Registration.fanOut K=16 [traitkit]: saw 15 callbacks in a sample, expected 16"
    var report = sampleReport()
    report.failures = [failure]

    for format in [OutputFormat.table, .markdown] {
      let text = report.render(format)
      let banner = try #require(text.range(of: Report.failureBanner))
      let firstScenario = try #require(text.range(of: "S1 Registration.fanOut —"))
      #expect(banner.lowerBound < firstScenario.lowerBound)
      #expect(text.contains(failure))
    }
    let csv = report.render(.csv).split(separator: "\n").map(String.init)
    #expect(csv.suffix(2) == ["# " + Report.failureBanner, "# " + failure])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(report.render(.json).utf8)) as? [String: Any]
    )
    #expect(object["failures"] as? [String] == [failure])
  }

  @Test("a run without failures has no banner, no comment lines and an empty failures array")
  func noFailures() throws {
    let report = sampleReport()
    for format in [OutputFormat.table, .markdown, .csv] {
      #expect(!report.render(format).contains(Report.failureBanner))
    }
    #expect(!report.render(.csv).contains("\n#"))
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(report.render(.json).utf8)) as? [String: Any]
    )
    #expect(object["failures"] as? [String] == [])
  }

  @Test("compare's JSON gives each result its wasted callbacks and its ratios to traitkit")
  func comparisonJSON() throws {
    let text = comparisonReport().render(.json)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    )
    let results = try #require(object["results"] as? [[String: Any]])
    let legacy = try #require(results.first { $0["contender"] as? String == "traitkit-legacy" })
    #expect(legacy["wasted_callbacks"] as? Double == 30)
    #expect(legacy["ratio_to_traitkit"] as? Double == 4)
    #expect(legacy["callbacks_ratio_to_traitkit"] as? Double == 4)
    let traitKit = try #require(results.first { $0["contender"] as? String == "traitkit" })
    #expect(traitKit["wasted_callbacks"] as? Double == 0)
  }

  @Test("compare's CSV has the wasted callbacks and ratio columns; a run's has none")
  func comparisonCSV() throws {
    let lines = comparisonReport().render(.csv).split(separator: "\n").map(String.init)
    let header = lines[0].split(separator: ",").map(String.init)
    let wasted = try #require(header.firstIndex(of: "wasted_callbacks_per_op"))
    let time = try #require(header.firstIndex(of: "ratio_to_traitkit"))
    let callbacks = try #require(header.firstIndex(of: "callbacks_ratio_to_traitkit"))
    let legacy = lines[3].split(separator: ",", omittingEmptySubsequences: false)
    #expect(legacy.count == header.count)
    #expect(Double(legacy[wasted]) == 30)
    #expect(Double(legacy[time]) == 4)
    #expect(Double(legacy[callbacks]) == 4)
    #expect(!sampleReport().render(.csv).contains("wasted"))
  }

  @Test("compare's table and markdown end with legacy ÷ traitkit per workload, wasted included")
  func comparisonTables() {
    for format in [OutputFormat.table, .markdown] {
      let text = comparisonReport().render(format)
      #expect(text.contains("wasted/op"))
      let summary = text.components(separatedBy: "traitkit-legacy ÷ traitkit").last ?? ""
      let row = summary.split(separator: "\n").first { $0.contains("theme") } ?? ""
      for cell in ["40", "30", "10", "800", "200", "4.00"] { #expect(row.contains(cell)) }
    }
  }

  @Test("compare without both traitkit and its legacy adapter says why it has no ratio row")
  func comparisonWithoutLegacy() {
    let full = comparisonReport()
    let report = Report(
      host: full.host,
      results: full.results.filter { $0.contender != .traitkitLegacy },
      summaries: full.summaries,
      notes: []
    )
    for format in [OutputFormat.table, .markdown] {
      let text = report.render(format)
      let section = text.components(separatedBy: "traitkit-legacy ÷ traitkit").last ?? ""
      #expect(section.contains("No ratio: it needs both traitkit-legacy and traitkit in the run."))
      #expect(!section.contains("legacy cb"), "no empty table under the title")
    }
  }

  @Test("JSON has the host and one object per scenario, contender and point, with the issue's keys")
  func json() throws {
    let text = sampleReport().render(.json)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    )
    let host = try #require(object["host"] as? [String: Any])
    #expect(host["cpu"] as? String == "Test CPU")
    #expect(host["notes"] as? [String] == ["a note"])
    let results = try #require(object["results"] as? [[String: Any]])
    #expect(results.count == 5)
    let keys: Set = [
      "scenario", "contender", "params", "unit", "median_ns", "p0_ns", "p100_ns", "callbacks",
      "allocs_per_op", "bytes", "ratio_to_floor", "runs_per_sample",
    ]
    for entry in results { #expect(keys.isSubset(of: entry.keys)) }

    let churn = try #require(
      results.first {
        $0["scenario"] as? String == "S6" && $0["contender"] as? String == "traitkit"
      }
    )
    #expect(churn["params"] as? [String: Int] == ["R": 50_000, "nodes": 11_111])
    #expect(churn["median_ns"] as? Double == 400)
    #expect(churn["p0_ns"] as? Double == 300)
    #expect(churn["p100_ns"] as? Double == 500)
    #expect(churn["bytes"] as? Int == 126)
    #expect(churn["allocs_per_op"] is NSNull)
    #expect(abs((churn["ratio_to_floor"] as? Double ?? 0) - 400.0 / 150) < 1e-12)
  }

  @Test("CSV has a header and one row per result, each with the header's number of columns")
  func csv() throws {
    let lines = sampleReport().render(.csv).split(separator: "\n").map(String.init)
    #expect(lines.count == 6)
    let header = lines[0].split(separator: ",", omittingEmptySubsequences: false)
    let median = try #require(header.firstIndex(of: "median_ns"))
    for line in lines.dropFirst() {
      #expect(line.split(separator: ",", omittingEmptySubsequences: false).count == header.count)
    }
    let row = lines[5].split(separator: ",", omittingEmptySubsequences: false)
    #expect(row[0] == "S6")
    #expect(row[2] == "traitkit")
    #expect(row[3] == "\"R=50000 nodes=11111\"")
    #expect(Double(row[median]) == 400)
    #expect(header.last == "runs_per_sample")
    #expect(row.last == "1")
  }

  @Test("the table and markdown have a section per scenario and a ratio summary of every contender")
  func tables() {
    for format in [OutputFormat.table, .markdown] {
      let text = sampleReport().render(format)
      #expect(text.contains("S1 Registration.fanOut — fan-out at one node"))
      #expect(text.contains("S6 Registration.churn — registration churn"))
      #expect(text.contains("Ratios to the floor"))
      let summary = text.components(separatedBy: "Ratios to the floor").last ?? ""
      let rows = summary.split(separator: "\n").filter { $0.contains("S6") }
      #expect(rows.count == 1)
      // S6 has no observation result: its cell is a dash, not a number.
      #expect(rows.first?.contains("2.67") == true)
      #expect(rows.first?.contains("–") == true)
      #expect(summary.contains("observation"))
    }
  }

  @Test("a target's figure rounded onto its bound prints the digits that decide its verdict")
  func targetFiguresAgreeWithVerdicts() {
    func row(_ measured: Double, _ bound: Double, atMost: Bool) -> String {
      var report = sampleReport()
      report.targets = [
        TargetVerdict(
          scenario: "S9",
          figure: "figure",
          point: "p=1",
          measured: measured,
          bound: bound,
          atMost: atMost
        )
      ]
      let text = report.render(.markdown)
      return text.split(separator: "\n").first { $0.hasPrefix("| S9 | figure") }.map(String.init)
        ?? ""
    }
    #expect(row(1.5004, 1.5, atMost: true) == "| S9 | figure | p=1 | 1.5004 | ≤ 1.5 | NO |")
    #expect(row(4.996, 5, atMost: false) == "| S9 | figure | p=1 | 4.996 | ≥ 5 | NO |")
    #expect(row(0.0003, 0, atMost: true) == "| S9 | figure | p=1 | 0.0003 | ≤ 0 | NO |")
    // Figures that two decimals judge rightly keep them.
    #expect(row(1.4996, 1.5, atMost: true) == "| S9 | figure | p=1 | 1.50 | ≤ 1.5 | yes |")
    #expect(row(1.27, 1.5, atMost: true) == "| S9 | figure | p=1 | 1.27 | ≤ 1.5 | yes |")
  }

  @Test("an allocation count below 0.005 per operation prints two significant digits, not 0.00")
  func smallAllocationCounts() {
    let result = PointResult(
      scenarioID: "S7",
      scenarioName: "Tracking.relayout",
      params: [("mode", 0)],
      contender: .traitkit,
      unit: "read",
      nanoseconds: [5, 6, 7],
      callbacksPerOperation: 0,
      allocationsPerOperation: 1.0 / 3_333,
      bytes: nil,
      nodesVisitedPerOperation: nil,
      ratioToFloor: nil
    )
    let report = Report(
      host: .fixture(samples: 3),
      results: [result],
      summaries: ["S7": "tracking"],
      notes: []
    )
    let row = report.render(.markdown).split(separator: "\n").first { $0.hasPrefix("| traitkit |") }
    #expect(row?.contains("| 0 | 0.0003 |") == true)
  }
}

@Suite("traitkit-bench SVG chart")
struct SVGChartTests {
  /// The elements of `svg` by name, after checking that it parses as XML.
  private func elements(of svg: String) throws -> [String: Int] {
    final class Counter: NSObject, XMLParserDelegate {
      var counts: [String: Int] = [:]
      func parser(
        _ parser: XMLParser,
        didStartElement name: String,
        namespaceURI: String?,
        qualifiedName: String?,
        attributes: [String: String] = [:]
      ) {
        counts[name, default: 0] += 1
      }
    }
    let parser = XMLParser(data: Data(svg.utf8))
    let counter = Counter()
    parser.delegate = counter
    try #require(parser.parse(), "not well-formed XML: \(String(describing: parser.parserError))")
    return counter.counts
  }

  @Test(
    "a chart has a polyline per series and a dot per point on the log scale, its title escaped"
  )
  func series() throws {
    let chart = SVGChart(
      title: "ns per callback <fan-out> & more",
      xLabel: "observers",
      yLabel: "ns",
      series: [
        .init(name: "floor", points: [(1, 3), (16, 2), (256, 1.5), (0, 9)]),
        .init(name: "traitkit", points: [(1, 30), (16, 4), (256, 1.2)]),
      ]
    )
    let svg = chart.render()
    let counts = try elements(of: svg)
    #expect(counts["svg"] == 1)
    #expect(counts["polyline"] == 2)
    #expect(counts["circle"] == 6)
    #expect(svg.contains("ns per callback &lt;fan-out&gt; &amp; more"))
  }

  @Test("a chart with nothing to draw is still a valid SVG document")
  func empty() throws {
    let svg = SVGChart(title: "t", xLabel: "x", yLabel: "y", series: []).render()
    #expect(try elements(of: svg) == ["svg": 1])
  }
}
