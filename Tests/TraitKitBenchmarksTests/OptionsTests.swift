import Testing

@testable import TraitKitBenchmarks

@Suite("traitkit-bench options")
struct OptionsTests {
  @Test("no arguments run every scenario at full size, as a table, on standard output")
  func defaults() throws {
    let options = try Options.parse([])
    #expect(options.command == .run)
    #expect(options.scenarios.isEmpty)
    #expect(options.preset == .full)
    #expect(options.format == .table)
    #expect(options.output == nil)
    #expect(options.svg == nil)
    #expect(options.samples == nil)
    #expect(options.contenders.isEmpty)
  }

  @Test("every option is read, scenario names in any case and repeated flags accumulating")
  func everyOption() throws {
    let options = try Options.parse([
      "compare", "--scenario", "s1,S2", "--scenario", "theme", "--smoke", "--samples", "4",
      "--contender", "floor,traitkit", "--format", "json", "--output", "out.json", "--svg",
      "chart.svg",
    ])
    #expect(options.command == .compare)
    #expect(options.scenarios == ["S1", "S2", "THEME"])
    #expect(options.preset == .smoke)
    #expect(options.samples == 4)
    #expect(options.contenders == [.floor, .traitkit])
    #expect(options.format == .json)
    #expect(options.output == "out.json")
    #expect(options.svg == "chart.svg")
  }

  @Test(
    "a mistake is a usage error that names it",
    arguments: [
      (["--samples", "0"], "--samples takes a positive whole number, not '0'"),
      (["--samples", "many"], "--samples takes a positive whole number, not 'many'"),
      (["--format", "xml"], "--format takes table, markdown, csv or json, not 'xml'"),
      (["--contender", "floor,combine"], "unknown contender 'combine'"),
      (["--output"], "--output needs a value"),
      (["--fast"], "unknown argument '--fast'"),
    ]
  )
  func mistakes(arguments: [String], message: String) {
    let error = #expect(throws: UsageError.self) { try Options.parse(arguments) }
    #expect(error?.message == message)
  }

  @Test("--help asks for the help text alone, with no error message")
  func help() {
    for flag in ["--help", "-h"] {
      let error = #expect(throws: UsageError.self) { try Options.parse(["--quick", flag]) }
      #expect(error != nil && error?.message == nil)
    }
  }
}
