/// The scenarios of `traitkit-bench`, in order.
let allScenarios: [any Scenario] = [
  S1FanOut()
]

/// The migration comparisons of `traitkit-bench compare`, in order.
let allComparisons: [any Scenario] = MigrationWorkload.allCases.map(MigrationComparison.init)
