/// The command line of `traitkit-bench`.
struct Options {
  enum Command: String {
    /// The scenarios S1–S10.
    case run
    /// Migration comparisons on app-shaped workloads.
    case compare
  }

  var command = Command.run
  /// The names `--scenario` gave, upper-cased.
  var scenarios: Set<String> = []
  /// Each name of `scenarios` as it was first typed, for error messages.
  var scenarioSpellings: [String: String] = [:]
  var preset = SizePreset.full
  var format = OutputFormat.table
  var output: String?
  var svg: String?
  var samples: Int?
  /// How long a timed sample lasts at least, in milliseconds (`--sample-ms`); nil for the size
  /// preset's (`SizePreset.sampleMilliseconds`).
  var sampleMilliseconds: Int?
  var contenders: Set<Contender> = []
  /// The MiB a background thread streams through during the run (`--contend`), if any.
  var contention: Int?

  static let usage = """
    USAGE: traitkit-bench [compare] [options]

    Runs TraitKit's observer-throughput scenarios S1–S10 side by side with a hand-written floor,
    the legacy adapter, Swift Observation and NotificationCenter; `compare` runs the migration
    comparisons (legacy callbacks against registrations) on app-shaped workloads. A run of
    S1–S10 ends with the benchmark's targets, each judged met or missed from this run's ratios
    (in JSON, under "targets"); a missed target does not fail the run, a wrong callback count
    does.

    OPTIONS:
      --scenario S1[,S2…]   Run only these scenarios; with `compare`, these workloads
                            (rotation, darkMode, dynamicType, theme, localOverride).
      --quick               Smaller sizes.
      --smoke               Tiny sizes with every assertion (under 20 s); what CI runs.
      --samples N           Timed samples per contender and point.
      --sample-ms MS        Repeat each contender's run within a timed sample until the
                            sample lasts at least MS milliseconds (0–1000), as many runs as
                            a warm run says, each run's count checked: steady state.
                            Default 20 (--quick 5, --smoke 0); 0 makes a sample one run,
                            taken in turn with the other contenders' and so starting with
                            the caches they left.
      --contender C[,C…]    Measure only these contenders (floor, traitkit, traitkit-legacy,
                            observation, notificationcenter), e.g. for profiling; without
                            --scenario, scenarios that measure none of them are left out.
      --contend MIB         While measuring, stream through MIB of memory (1–4096) on another
                            core, as a busy neighbour would: shows S6, S7's tracked read and
                            S8 under a contended shared cache (compare the load-latency probe
                            in the header).
      --format FORMAT       table (default), markdown, csv or json.
      --output FILE         Write the report to FILE instead of standard output.
      --svg FILE            Also draw a log-log chart of ns per callback against observer count
                            (S1; not with `compare`).
      --help                Show this help.
    """

  /// Parses `arguments` (without the program name).
  static func parse(_ arguments: [String]) throws(UsageError) -> Options {
    var options = Options()
    var remaining = arguments[...]
    if let first = remaining.first, let command = Command(rawValue: first) {
      options.command = command
      remaining = remaining.dropFirst()
    }
    /// The options that take one value, or choose one setting, given so far; `--quick` and
    /// `--smoke` both choose the sizes.
    var given: [String: String] = [:]
    while let argument = remaining.popFirst() {
      // NB: a second one would silently replace the first: a report asked for under one name
      // would never be written, or a run would take sizes other than those asked for.
      let setting = argument == "--smoke" ? "--quick" : argument
      if [
        "--quick", "--samples", "--sample-ms", "--format", "--contend", "--output", "--svg",
      ].contains(setting) {
        if let earlier = given[setting] {
          throw UsageError(
            earlier == argument
              ? "\(argument) is given twice: give it once"
              : "\(earlier) and \(argument) both choose the sizes: give one"
          )
        }
        given[setting] = argument
      }
      // NB: an option is never taken as a value: `--output --smoke` would otherwise write the
      // report to a file named "--smoke" and run at full size.
      func value() throws(UsageError) -> String {
        guard let value = remaining.first else {
          throw UsageError("\(argument) needs a value")
        }
        guard !Self.isOption(value) else {
          throw UsageError("\(argument) needs a value, not the option '\(value)'")
        }
        remaining = remaining.dropFirst()
        return value
      }
      // NB: `split` drops empty pieces, so an empty list (an unset shell variable, say) would
      // select everything.
      func list(of what: String) throws(UsageError) -> [Substring] {
        let names = try value().split(separator: ",")
        guard !names.isEmpty else { throw UsageError("\(argument) needs at least one \(what)") }
        return names
      }
      switch argument {
      case "--scenario":
        for name in try list(of: "scenario") {
          let key = name.uppercased()
          options.scenarios.insert(key)
          if options.scenarioSpellings[key] == nil { options.scenarioSpellings[key] = String(name) }
        }
      case "--quick": options.preset = .quick
      case "--smoke": options.preset = .smoke
      case "--samples":
        let text = try value()
        guard let samples = Int(text), samples > 0 else {
          throw UsageError("--samples takes a positive whole number, not '\(text)'")
        }
        options.samples = samples
      case "--sample-ms":
        let text = try value()
        guard let milliseconds = Int(text), (0...1000).contains(milliseconds) else {
          throw UsageError(
            "--sample-ms takes a whole number of milliseconds from 0 to 1000, not '\(text)'"
          )
        }
        options.sampleMilliseconds = milliseconds
      case "--format":
        let text = try value()
        guard let format = OutputFormat(rawValue: text) else {
          throw UsageError("--format takes table, markdown, csv or json, not '\(text)'")
        }
        options.format = format
      case "--contender":
        for name in try list(of: "contender") {
          guard let contender = Contender(rawValue: String(name)) else {
            throw UsageError("unknown contender '\(name)'")
          }
          options.contenders.insert(contender)
        }
      case "--contend":
        let text = try value()
        guard let mebibytes = Int(text), CacheContention.sizes.contains(mebibytes) else {
          throw UsageError("--contend takes a size in MiB from 1 to 4096, not '\(text)'")
        }
        options.contention = mebibytes
      case "--output": options.output = try value()
      case "--svg": options.svg = try value()
      case "--help", "-h": throw UsageError(nil)
      default:
        guard Command(rawValue: argument) == nil else {
          throw UsageError("'\(argument)' is a command: give it first, before the options")
        }
        throw UsageError("unknown argument '\(argument)'")
      }
    }
    if options.command == .compare, options.svg != nil {
      throw UsageError("--svg charts the S1 fan-out of a run; compare has no fan-out to chart")
    }
    if options.svg != nil, !options.scenarios.isEmpty, !options.scenarios.contains("S1") {
      throw UsageError("--svg charts the S1 fan-out, which --scenario leaves out")
    }
    if let output = options.output, let svg = options.svg,
      OutputFile(path: output).resolvedPath == OutputFile(path: svg).resolvedPath
    {
      throw UsageError(
        "--output and --svg name the same file, \(svg): the chart would replace the report"
      )
    }
    return options
  }

  /// Whether `argument` is an option rather than a value.
  private static func isOption(_ argument: String) -> Bool {
    argument.hasPrefix("--") || argument == "-h"
  }

  /// The scenarios of `scenarios` that measure a chosen contender (all when none is chosen), and
  /// the others, which the run leaves out.
  ///
  /// Scenarios that `--scenario` names must each measure a chosen contender; without it, a run
  /// over every scenario leaves out those that measure none (`--contender traitkit-legacy` runs
  /// the scenarios that measure the adapter). Each scenario's contenders are read from its
  /// workloads at the smoke sizes, which build in moments, so that a selection that measures
  /// nothing fails before the run, not after it.
  ///
  /// - Throws: a usage error naming a named scenario that measures none of the chosen
  ///   contenders, or the chosen contenders that no kept scenario measures, or saying that
  ///   `--svg` has no S1 to chart.
  func scenariosMeasuringContenders(
    of scenarios: [any Scenario]
  ) throws(UsageError) -> (kept: [any Scenario], leftOut: [any Scenario]) {
    guard !contenders.isEmpty else { return (scenarios, []) }
    let names = { (set: Set<Contender>) in set.sorted().map(\.rawValue).joined(separator: ", ") }
    var kept: [any Scenario] = []
    var leftOut: [any Scenario] = []
    var measuredAnywhere: Set<Contender> = []
    for scenario in scenarios {
      let measured = scenario.contenders
      guard measured.isDisjoint(with: contenders) else {
        kept.append(scenario)
        measuredAnywhere.formUnion(measured)
        continue
      }
      guard self.scenarios.isEmpty else {
        throw UsageError(
          "\(scenario.id) measures none of the chosen contenders (\(names(contenders))); "
            + "it measures \(names(measured))"
        )
      }
      leftOut.append(scenario)
    }
    if svg != nil, leftOut.contains(where: { $0.id == "S1" }) {
      throw UsageError(
        "--svg charts the S1 fan-out, which measures none of the chosen contenders "
          + "(\(names(contenders)))"
      )
    }
    let unmeasured = contenders.subtracting(measuredAnywhere)
    guard unmeasured.isEmpty else {
      let measuring = kept.isEmpty ? "" : "; they measure \(names(measuredAnywhere))"
      throw UsageError("no chosen scenario measures \(names(unmeasured))\(measuring)")
    }
    return (kept, leftOut)
  }

  /// The scenarios of `available` that `--scenario` names (all when it names none), in order.
  ///
  /// - Throws: a usage error naming each name that matches no scenario.
  func selectScenarios(from available: [any Scenario]) throws(UsageError) -> [any Scenario] {
    let ids = available.map { $0.id.uppercased() }
    let unknown = scenarios.subtracting(ids).sorted()
    guard unknown.isEmpty else {
      let names = unknown.map { "'\(scenarioSpellings[$0] ?? $0)'" }.joined(separator: ", ")
      throw UsageError(
        "unknown scenario \(names) (choose from \(available.map(\.id).joined(separator: ", ")))"
      )
    }
    return available.filter { scenarios.isEmpty || scenarios.contains($0.id.uppercased()) }
  }
}

/// A command-line mistake; `nil` asks for the help text alone.
struct UsageError: Error {
  let message: String?
  init(_ message: String?) { self.message = message }
}
