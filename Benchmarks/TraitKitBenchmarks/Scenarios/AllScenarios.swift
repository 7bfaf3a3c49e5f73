/// The scenarios of `traitkit-bench`, in order.
let allScenarios: [any Scenario] = [
  S1FanOut(),
  S2SelectiveBroadcast(),
  S3DeepChain(),
  S4Shadowing(),
  S5BatchedSemanticSet(),
  S6RegistrationChurn(),
  S7AutomaticTracking(),
  S8ReadsUnderOverrides(),
  S9LegacyParity(),
  S10Memory(),
]

/// The migration comparisons of `traitkit-bench compare`, in order.
let allComparisons: [any Scenario] = MigrationWorkload.allCases.map(MigrationComparison.init)
