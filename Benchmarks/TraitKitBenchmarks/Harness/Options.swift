/// The command line of `traitkit-bench`.
struct Options {
  enum Command: String {
    /// The scenarios S1–S10.
    case run
    /// Migration comparisons on app-shaped workloads.
    case compare
  }

  var command = Command.run
  var scenarios: Set<String> = []
  var preset = SizePreset.full
  var format = OutputFormat.table
  var output: String?
  var svg: String?
  var samples: Int?
  var contenders: Set<Contender> = []

  static let usage = """
    USAGE: traitkit-bench [compare] [options]

    Runs TraitKit's observer-throughput scenarios S1–S10 side by side with a hand-written floor,
    the legacy adapter, Swift Observation and NotificationCenter; `compare` runs the migration
    comparisons (legacy callbacks against registrations) on app-shaped workloads. A run of
    S1–S10 ends with the benchmark's targets, each judged met or missed from this run's ratios
    (in JSON, under "targets"); a missed target does not fail the run, a wrong callback count
    does.

    OPTIONS:
      --scenario S1[,S2…]   Run only these scenarios (or workloads, with `compare`).
      --quick               Smaller sizes.
      --smoke               Tiny sizes with every assertion (under 20 s); what CI runs.
      --samples N           Timed samples per contender and point.
      --contender C[,C…]    Measure only these contenders (floor, traitkit, traitkit-legacy,
                            observation, notificationcenter), e.g. for profiling.
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
    while let argument = remaining.popFirst() {
      func value() throws(UsageError) -> String {
        guard let value = remaining.popFirst() else {
          throw UsageError("\(argument) needs a value")
        }
        return value
      }
      switch argument {
      case "--scenario":
        options.scenarios.formUnion(try value().split(separator: ",").map { $0.uppercased() })
      case "--quick": options.preset = .quick
      case "--smoke": options.preset = .smoke
      case "--samples":
        let text = try value()
        guard let samples = Int(text), samples > 0 else {
          throw UsageError("--samples takes a positive whole number, not '\(text)'")
        }
        options.samples = samples
      case "--format":
        let text = try value()
        guard let format = OutputFormat(rawValue: text) else {
          throw UsageError("--format takes table, markdown, csv or json, not '\(text)'")
        }
        options.format = format
      case "--contender":
        for name in try value().split(separator: ",") {
          guard let contender = Contender(rawValue: String(name)) else {
            throw UsageError("unknown contender '\(name)'")
          }
          options.contenders.insert(contender)
        }
      case "--output": options.output = try value()
      case "--svg": options.svg = try value()
      case "--help", "-h": throw UsageError(nil)
      default: throw UsageError("unknown argument '\(argument)'")
      }
    }
    if options.command == .compare, options.svg != nil {
      throw UsageError("--svg charts the S1 fan-out of a run; compare has no fan-out to chart")
    }
    return options
  }

  /// The scenarios of `available` that `--scenario` names (all when it names none), in order.
  ///
  /// - Throws: a usage error naming each name that matches no scenario.
  func selectScenarios(from available: [any Scenario]) throws(UsageError) -> [any Scenario] {
    let ids = available.map { $0.id.uppercased() }
    let unknown = scenarios.subtracting(ids).sorted()
    guard unknown.isEmpty else {
      let names = unknown.map { "'\($0)'" }.joined(separator: ", ")
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
