import Foundation

/// Output formats of `traitkit-bench`.
enum OutputFormat: String {
  case table, markdown, csv, json
}

/// Renders results in the chosen format.
struct Report {
  let host: Host
  let results: [PointResult]
  let summaries: [String: String]
  let notes: [String]
  /// The issue's targets, judged against these results (see ``Targets``).
  var targets: [TargetVerdict] = []
  /// How much of the shared cache the run had, when the probe could tell (see ``CacheSqueeze``).
  var cache: CacheSqueeze? = nil
  /// The wrong callback counts and failed checks the run saw: when there are any, its figures
  /// are not valid, and every format says so.
  var failures: [String] = []

  func render(_ format: OutputFormat) -> String {
    switch format {
    case .table: renderText(markdown: false)
    case .markdown: renderText(markdown: true)
    case .csv: renderCSV()
    case .json: renderJSON()
    }
  }

  // MARK: - Text

  private func renderText(markdown: Bool) -> String {
    var out = ""
    if markdown {
      out += "# traitkit-bench\n\n| host | |\n|---|---|\n"
      for (key, value) in host.fields { out += "| \(key) | \(value) |\n" }
    } else {
      out += "traitkit-bench — " + host.fields.map { "\($0.0): \($0.1)" }.joined(separator: ", ")
      out += "\n"
    }
    if !failures.isEmpty {
      out += (markdown ? "\n**" : "\n") + Self.failureBanner + (markdown ? "**\n\n" : "\n")
      for failure in failures { out += (markdown ? "- " : "  ") + failure + "\n" }
    }
    for note in notes { out += (markdown ? "\n> " : "note: ") + note + "\n" }
    var lastScenario = ""
    for group in groupedPoints() {
      let first = group[0]
      if first.scenarioID != lastScenario {
        lastScenario = first.scenarioID
        let title =
          "\(first.scenarioID) \(first.scenarioName) — \(summaries[first.scenarioID] ?? "")"
        out += markdown ? "\n## \(title)\n" : "\n\(String(repeating: "=", count: 100))\n\(title)\n"
      }
      out +=
        markdown
        ? "\n### \(first.paramsDescription) (ns per \(first.unit))\n\n"
        : "\n\(first.paramsDescription) — ns per \(first.unit)\n"
      let headers =
        [
          "Contender", "p0", "p25", "p50", "p75", "p90", "p99", "p100", "Samples", "cb/op",
          "allocs/op", "visited/op", "bytes", "×floor",
        ] + (isComparison ? ["wasted/op", "×traitkit", "cb ×traitkit"] : [])
      let rows = group.map { result in
        let ratios = ratiosToTraitKit(result)
        let comparison =
          isComparison
          ? [
            result.wastedCallbacksPerOperation.map(format) ?? "–",
            ratios.map { String(format: "%.2f", $0.time) } ?? "–",
            ratios.map { String(format: "%.2f", $0.callbacks) } ?? "–",
          ] : []
        return [
          result.contender.rawValue,
          format(result.percentile(0)), format(result.percentile(25)),
          format(result.percentile(50)),
          format(result.percentile(75)), format(result.percentile(90)),
          format(result.percentile(99)),
          format(result.percentile(100)), samplesDescription(result),
          format(result.callbacksPerOperation),
          result.allocationsPerOperation.map(format) ?? "–",
          result.nodesVisitedPerOperation.map(format) ?? "–",
          result.bytes.map { "\($0)" } ?? "–",
          result.ratioToFloor.map { String(format: "%.2f", $0) } ?? "–",
        ] + comparison
      }
      out += markdown ? markdownTable(headers, rows) : textTable(headers, rows)
    }
    out +=
      markdown
      ? "\n## Ratios to the floor (median)\n\n"
      : "\n\(String(repeating: "=", count: 100))\nRatios to the floor (median ns per unit; lower is better)\n"
    let contenders = Contender.allCases.filter { c in results.contains { $0.contender == c } }
    let headers = ["Scenario", "Point", "Unit"] + contenders.map(\.rawValue)
    let rows = groupedPoints().map { group in
      [group[0].scenarioID, group[0].paramsDescription, group[0].unit]
        + contenders.map { contender in
          group.first { $0.contender == contender }?.ratioToFloor.map {
            String(format: "%.2f", $0)
          } ?? "–"
        }
    }
    out += markdown ? markdownTable(headers, rows) : textTable(headers, rows)
    out += renderLegacyRatios(markdown: markdown)
    out += renderTargets(markdown: markdown)
    return out
  }

  // MARK: - Migration comparisons

  /// Whether these are `compare`'s results, which tell wasted callbacks apart.
  private var isComparison: Bool {
    results.contains { $0.wastedCallbacksPerOperation != nil }
  }

  /// The result's median time and callbacks per operation over traitkit's at the same point.
  private func ratiosToTraitKit(_ result: PointResult) -> (time: Double, callbacks: Double)? {
    guard
      let traitKit = results.first(where: {
        $0.contender == .traitkit && $0.scenarioID == result.scenarioID
          && $0.paramsDescription == result.paramsDescription
      }), traitKit.median > 0, traitKit.callbacksPerOperation > 0
    else { return nil }
    return (
      result.median / traitKit.median, result.callbacksPerOperation / traitKit.callbacksPerOperation
    )
  }

  /// For `compare`: per workload, the legacy and registration callbacks per change, the legacy
  /// ones wasted, the time per change of each, and legacy ÷ traitkit in time and callbacks.
  private func renderLegacyRatios(markdown: Bool) -> String {
    guard isComparison else { return "" }
    let title = "Legacy callbacks ÷ registrations (traitkit-legacy ÷ traitkit, per change)"
    var out = markdown ? "\n## \(title)\n\n" : "\n\(String(repeating: "=", count: 100))\n\(title)\n"
    let headers = [
      "Workload", "Point", "legacy cb", "wasted cb", "traitkit cb", "legacy ns", "traitkit ns",
      "time ×", "callbacks ×",
    ]
    let rows = results.filter { $0.contender == .traitkitLegacy }.compactMap {
      legacy -> [String]? in
      guard
        let traitKit = results.first(where: {
          $0.contender == .traitkit && $0.scenarioID == legacy.scenarioID
            && $0.paramsDescription == legacy.paramsDescription
        }), let ratios = ratiosToTraitKit(legacy)
      else { return nil }
      return [
        legacy.scenarioID, legacy.paramsDescription, format(legacy.callbacksPerOperation),
        legacy.wastedCallbacksPerOperation.map(format) ?? "–",
        format(traitKit.callbacksPerOperation), format(legacy.median), format(traitKit.median),
        String(format: "%.2f", ratios.time), String(format: "%.2f", ratios.callbacks),
      ]
    }
    guard !rows.isEmpty else {
      return out + (markdown ? "" : "\n")
        + "No ratio: it needs both traitkit-legacy and traitkit in the run.\n"
    }
    out += markdown ? markdownTable(headers, rows) : textTable(headers, rows, leftColumns: 2)
    return out
  }

  /// The targets section: one row per verdict, and how many were met.
  private func renderTargets(markdown: Bool) -> String {
    guard !targets.isEmpty else { return "" }
    let title =
      "Targets (the issue's, stated for the default sizes; a missed one does not fail the run)"
    var out =
      markdown
      ? "\n## \(title)\n\n" : "\n\(String(repeating: "=", count: 100))\n\(title)\n"
    let headers = ["Scenario", "Figure", "Point", "Measured", "Target", "Met"]
    let rows = targets.map { verdict in
      [
        verdict.scenario, verdict.figure, verdict.point, measuredDescription(verdict),
        verdict.boundDescription, verdict.met ? "yes" : "NO",
      ]
    }
    out += markdown ? markdownTable(headers, rows) : textTable(headers, rows, leftColumns: 3)
    let met = targets.count { $0.met }
    out += (markdown ? "\n" : "") + "\(met) of \(targets.count) targets met\n"
    if let cache {
      out += (markdown ? "\n" : "") + cache.sentence(misses: targets.filter { !$0.met }) + "\n"
    }
    return out
  }

  private func groupedPoints() -> [[PointResult]] {
    var groups: [[PointResult]] = []
    for result in results {
      if let last = groups.last?.first, last.scenarioID == result.scenarioID,
        last.paramsDescription == result.paramsDescription
      {
        groups[groups.count - 1].append(result)
      } else {
        groups.append([result])
      }
    }
    return groups
  }

  /// The measured figure of `verdict` as `format` prints it, or with as many more decimals as
  /// it takes for the printed figure to meet or miss the bound as the figure does: "1.50 ≤ 1.5
  /// NO" cannot be printed.
  private func measuredDescription(_ verdict: TargetVerdict) -> String {
    var text = format(verdict.measured)
    var decimals = 2
    while decimals < 12, let printed = Double(text), verdict.meets(printed) != verdict.met {
      decimals += 1
      text = String(format: "%.\(decimals)f", verdict.measured)
    }
    return text
  }

  private func format(_ value: Double) -> String {
    if value.isNaN { return "–" }
    if value == value.rounded() && abs(value) < 1e6 { return String(Int(value)) }
    // NB: two significant digits below 0.005, which two decimals would print as 0.00: one
    // allocation in thousands of operations must not read as none.
    if abs(value) < 0.005 { return String(format: "%.2g", value) }
    if abs(value) >= 100 { return String(format: "%.0f", value) }
    if abs(value) >= 10 { return String(format: "%.1f", value) }
    return String(format: "%.2f", value)
  }

  /// A plain-text table: the first `leftColumns` columns aligned left, the others right.
  private func textTable(_ headers: [String], _ rows: [[String]], leftColumns: Int = 1) -> String {
    let widths = headers.indices.map { column in
      ([headers[column]] + rows.map { $0[column] }).map(\.count).max() ?? 0
    }
    func line(_ cells: [String]) -> String {
      cells.enumerated().map { index, cell in
        index < leftColumns
          ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
          : String(repeating: " ", count: widths[index] - cell.count) + cell
      }.joined(separator: "  ")
    }
    return
      ([line(headers), String(repeating: "-", count: widths.reduce(0, +) + 2 * (widths.count - 1))]
      + rows.map(line)).joined(separator: "\n") + "\n"
  }

  private func markdownTable(_ headers: [String], _ rows: [[String]]) -> String {
    var out = "| " + headers.joined(separator: " | ") + " |\n"
    out += "|" + headers.map { _ in "---|" }.joined() + "\n"
    for row in rows { out += "| " + row.joined(separator: " | ") + " |\n" }
    return out
  }

  /// What a report with failures says first.
  static let failureBanner =
    "WRONG CALLBACK COUNTS OR FAILED CHECKS: this run's figures are not valid"

  /// A result's timed samples, and the runs each repeated when more than one (`--sample-ms`):
  /// "15", "15×203".
  private func samplesDescription(_ result: PointResult) -> String {
    let samples = "\(result.nanoseconds.count)"
    return result.runsPerSample > 1 ? "\(samples)×\(result.runsPerSample)" : samples
  }

  // MARK: - CSV and JSON

  private func renderCSV() -> String {
    var out =
      "scenario,name,contender,params,unit,p0_ns,p25_ns,median_ns,p75_ns,p90_ns,p99_ns,p100_ns,"
      + "samples,callbacks_per_op,allocs_per_op,nodes_visited_per_op,bytes,ratio_to_floor"
      + (isComparison
        ? ",wasted_callbacks_per_op,ratio_to_traitkit,callbacks_ratio_to_traitkit" : "")
      + ",runs_per_sample\n"
    for result in results {
      let fields: [String] = [
        result.scenarioID, result.scenarioName, result.contender.rawValue,
        "\"\(result.paramsDescription)\"", result.unit,
      ]
      let percentiles = [0.0, 25, 50, 75, 90, 99, 100].map { String(result.percentile($0)) }
      let rest: [String] = [
        "\(result.nanoseconds.count)", String(result.callbacksPerOperation),
        result.allocationsPerOperation.map { String($0) } ?? "",
        result.nodesVisitedPerOperation.map { String($0) } ?? "",
        result.bytes.map { String($0) } ?? "",
        result.ratioToFloor.map { String($0) } ?? "",
      ]
      let ratios = ratiosToTraitKit(result)
      let comparison =
        isComparison
        ? [
          result.wastedCallbacksPerOperation.map { String($0) } ?? "",
          ratios.map { String($0.time) } ?? "", ratios.map { String($0.callbacks) } ?? "",
        ] : []
      out +=
        (fields + percentiles + rest + comparison + ["\(result.runsPerSample)"])
        .joined(separator: ",") + "\n"
    }
    // NB: after the rows, as lines no CSV reader takes for a row of figures, so that a bad
    // run's file cannot pass for a good one's.
    if !failures.isEmpty {
      out += "# " + Self.failureBanner + "\n"
      for failure in failures { out += "# " + failure + "\n" }
    }
    return out
  }

  private func renderJSON() -> String {
    func number(_ value: Double?) -> Any {
      guard let value, value.isFinite else { return NSNull() }
      return value
    }
    var hostObject: [String: Any] = [:]
    for (key, value) in host.fields { hostObject[key] = value }
    hostObject["notes"] = notes
    let entries: [[String: Any]] = results.map { result in
      var params: [String: Int] = [:]
      for (key, value) in result.params { params[key] = value }
      var entry: [String: Any] = [
        "scenario": result.scenarioID,
        "name": result.scenarioName,
        "contender": result.contender.rawValue,
        "params": params,
        "unit": result.unit,
        "median_ns": number(result.median),
        "p0_ns": number(result.percentile(0)),
        "p25_ns": number(result.percentile(25)),
        "p75_ns": number(result.percentile(75)),
        "p90_ns": number(result.percentile(90)),
        "p99_ns": number(result.percentile(99)),
        "p100_ns": number(result.percentile(100)),
        "samples": result.nanoseconds.count,
        "runs_per_sample": result.runsPerSample,
        "callbacks": number(result.callbacksPerOperation),
        "allocs_per_op": number(result.allocationsPerOperation),
        "nodes_visited_per_op": number(result.nodesVisitedPerOperation),
        "bytes": result.bytes.map { $0 as Any } ?? NSNull(),
        "ratio_to_floor": number(result.ratioToFloor),
      ]
      if isComparison {
        let ratios = ratiosToTraitKit(result)
        entry["wasted_callbacks"] = number(result.wastedCallbacksPerOperation)
        entry["ratio_to_traitkit"] = number(ratios?.time)
        entry["callbacks_ratio_to_traitkit"] = number(ratios?.callbacks)
      }
      return entry
    }
    let verdicts: [[String: Any]] = targets.map { verdict in
      [
        "scenario": verdict.scenario,
        "figure": verdict.figure,
        "point": verdict.point,
        "measured": number(verdict.measured),
        "bound": verdict.bound,
        "comparison": verdict.atMost ? "<=" : ">=",
        "met": verdict.met,
        "memory_bound": verdict.isMemoryBound,
      ]
    }
    var object: [String: Any] = [
      "host": hostObject, "results": entries, "targets": verdicts, "failures": failures,
    ]
    if let cache {
      object["cache"] = [
        "mib": CacheSqueeze.mebibytes,
        "squeeze_before_percent": cache.before.map { $0 as Any } ?? NSNull(),
        "squeeze_after_percent": cache.after.map { $0 as Any } ?? NSNull(),
        "regime_before": cache.regimes.map { $0.before.rawValue as Any } ?? NSNull(),
        "regime_after": cache.regimes.map { $0.after.rawValue as Any } ?? NSNull(),
        "regime": cache.regime?.rawValue ?? "not_judged",
        "contended": cache.contended,
      ]
    }
    guard
      let data = try? JSONSerialization.data(
        withJSONObject: object,
        options: [.prettyPrinted, .sortedKeys]
      )
    else { preconditionFailure("The report holds only JSON-compatible values") }
    return String(decoding: data, as: UTF8.self) + "\n"
  }
}
