import Foundation
import TraitKit

// traitkit-bench: TraitKit's observer-throughput benchmark. See `Options.usage`.

func printError(_ text: String) {
  FileHandle.standardError.write(Data((text + "\n").utf8))
}

let options: Options
do {
  options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
  if let message = error.message {
    printError("error: \(message)\n")
    printError(Options.usage)
    exit(2)
  }
  print(Options.usage)
  exit(0)
}
// Before measuring: a report that cannot be written should fail now, not after the run.
for path in [options.output, options.svg].compactMap(\.self) {
  do {
    try OutputFile(path: path).checkWritable()
  } catch {
    printError("error: \(error.message ?? path)")
    exit(2)
  }
}

if isDebugBuild {
  printError(
    """
    ********************************************************************************
    WARNING: traitkit-bench was built in DEBUG. Timings are meaningless; run
             swift run -c release traitkit-bench
    ********************************************************************************
    """
  )
}

if TraitGraph._internalChecksEnabled {
  printError(
    """
    ********************************************************************************
    WARNING: TraitKit was built with -DTRAITKIT_INTERNAL_CHECKS: every update pass
             verifies the whole graph. Timings are meaningless.
    ********************************************************************************
    """
  )
}

var notes =
  options.command == .run
  ? [
    "observation and notificationcenter get the floor's tree walk: their figures isolate "
      + "notification cost, not propagation.",
    "Every sample's callback count is checked; ratios are medians over the floor's median in "
      + "this same run.",
    "S6, S7's tracked read and S8 with overrides are memory-bound: their ratios grow when the "
      + "host's other tenants leave this process less shared cache. load_latency_ns is a "
      + "dependent load's latency by working-set size before and after the run: a jump to memory "
      + "latency at 4 or 8 MiB means a squeezed run, which the targets section judges at its end.",
  ]
  : [
    "Every sample's callback count is checked, and after each sample one untimed cycle checks "
      + "the engine's callbacks, legacy callbacks and wasted ones per change against the model.",
    "A wasted callback is a legacy call to a node that uses none of the traits that changed; "
      + "ratios are legacy over traitkit, medians of this same run.",
  ]
if let mebibytes = options.contention {
  notes.append(
    "--contend \(mebibytes): a thread streamed through \(mebibytes) MiB on another core during "
      + "the run, probes included, as a busy neighbour would; the memory-bound ratios show a "
      + "contended shared cache."
  )
}
if isDebugBuild { notes.insert("DEBUG BUILD: timings are not representative.", at: 0) }
if TraitGraph._internalChecksEnabled {
  notes.insert("INTERNAL CHECKS ON: timings are not representative.", at: 0)
}

let scenarios: [any Scenario]
do {
  let selection = try options.scenariosMeasuringContenders(
    of: options.selectScenarios(from: options.command == .run ? allScenarios : allComparisons)
  )
  scenarios = selection.kept
  if !selection.leftOut.isEmpty {
    let ids = selection.leftOut.map(\.id).joined(separator: ", ")
    let note = "Left out: \(ids), which measure none of the chosen contenders."
    printError(note)
    notes.append(note)
  }
} catch {
  printError("error: \(error.message ?? "no scenario")")
  exit(2)
}
let summaries = Dictionary(uniqueKeysWithValues: scenarios.map { ($0.id, $0.summary) })

let clock = ContinuousClock()
let started = clock.now
var runner = Runner(preset: options.preset, samples: options.samples) { label in
  let elapsed = (clock.now - started).nanoseconds / 1e9
  printError(String(format: "[%6.1fs] %@", elapsed, label))
}
runner.contenders = options.contenders
let sampleMilliseconds = options.sampleMilliseconds ?? options.preset.sampleMilliseconds
runner.minimumSampleDuration = .milliseconds(sampleMilliseconds)
if options.contention != nil, ProcessInfo.processInfo.activeProcessorCount < 2 {
  printError("error: --contend needs a second core for its thread; this host has one")
  exit(2)
}
let contention = options.contention.map {
  printError("cache contention: streaming through \($0) MiB on another thread")
  return CacheContention(mebibytes: $0)
}
printError("load-latency probe (before)")
let latencyBefore = LoadLatencyProbe.measure()
for scenario in scenarios { runner.run(scenario) }
printError("load-latency probe (after)")
let latencyAfter = LoadLatencyProbe.measure()
contention?.stop()

let host = Host.current(
  preset: options.preset,
  samples: runner.samples,
  sampleMilliseconds: sampleMilliseconds,
  loadLatency: (LoadLatencyProbe.describe(latencyBefore), LoadLatencyProbe.describe(latencyAfter)),
  contention: options.contention
)
let report = Report(
  host: host,
  results: runner.results,
  summaries: summaries,
  notes: notes,
  targets: options.command == .run ? Targets.judge(runner.results, failures: runner.failures) : [],
  cache: CacheSqueeze(
    before: latencyBefore,
    after: latencyAfter,
    contended: options.contention != nil
  ),
  failures: runner.failures
)
let text = report.render(options.format)
/// Failures to write what the options asked for; the run still writes the rest and checks counts.
var writeFailures = 0
/// Writes `text` to standard output; returns whether it could, saying why not (a full disk, a
/// closed descriptor), which `print` would drop at exit.
func writeToStandardOutput(_ text: String) -> Bool {
  do {
    try FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
    return true
  } catch {
    printError("error: cannot write the report to standard output: \(OutputFile.reason(error))")
    return false
  }
}
if let output = options.output {
  if let failure = OutputFile(path: output).write(text) {
    // The measurements are not lost: the report goes to standard output instead.
    printError("error: \(failure); the report follows on standard output")
    _ = writeToStandardOutput(text)
    writeFailures += 1
  }
} else if !writeToStandardOutput(text) {
  writeFailures += 1
}

if let svgPath = options.svg {
  let fanOut = runner.results.filter { $0.scenarioID == "S1" }
  let series = Contender.allCases.compactMap { contender -> SVGChart.Series? in
    let points = fanOut.filter { $0.contender == contender }.map {
      (x: Double($0.params[0].1), y: $0.median)
    }
    return points.isEmpty ? nil : SVGChart.Series(name: contender.rawValue, points: points)
  }
  // NB: checked here as well as before the run: an empty chart must not replace an earlier one.
  if series.isEmpty {
    printError("error: no S1 figures to chart; \(svgPath) is left as it was")
    writeFailures += 1
  } else {
    let chart = SVGChart(
      title: "S1 fan-out: ns per callback against observer count",
      xLabel: "observers of the changed trait (K)",
      yLabel: "ns per callback (median)",
      series: series
    )
    if let failure = OutputFile(path: svgPath).write(chart.render()) {
      printError("error: \(failure)")
      writeFailures += 1
    }
  }
}

let elapsed = (clock.now - started).nanoseconds / 1e9
if runner.failures.isEmpty {
  printError(
    String(format: "traitkit-bench: all callback counts and checks correct (%.1f s)", elapsed)
  )
} else {
  printError("traitkit-bench: WRONG CALLBACK COUNTS OR FAILED CHECKS:")
  for failure in runner.failures { printError("  " + failure) }
  exit(1)
}
if writeFailures > 0 { exit(1) }
