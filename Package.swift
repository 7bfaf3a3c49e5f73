// swift-tools-version: 6.2
import PackageDescription

/// Settings shared by every target of ours: Swift 6 mode is set package-wide below; these add the
/// upcoming features the house style asks for and turn every warning into an error.
let strictSettings: [SwiftSetting] = [
  .enableUpcomingFeature("ExistentialAny"),
  .enableUpcomingFeature("InternalImportsByDefault"),
  .enableUpcomingFeature("MemberImportVisibility"),
  .treatAllWarnings(as: .error),
]

let package = Package(
  name: "TraitKit",
  // NB: the first releases whose Synchronization module has `Atomic`, which the engine uses.
  // Linux needs no entry; CI builds only there, so the Apple platforms are untested.
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "TraitKit", targets: ["TraitKit"]),
    .library(name: "TraitKitLegacy", targets: ["TraitKitLegacy"]),
    .executable(name: "traitkit-bench", targets: ["TraitKitBenchmarks"]),
  ],
  targets: [
    .target(
      name: "TraitKit",
      dependencies: ["CTraitKitShims"],
      swiftSettings: strictSettings
    ),
    // C11 thread-local variables for TraitKit (Swift has none of its own), a prefetch, and the
    // read path's process-wide atomics, which a client's inlined read loads; header only.
    .systemLibrary(name: "CTraitKitShims", path: "Sources/CTraitKitShims"),
    .target(
      name: "TraitKitLegacy",
      dependencies: ["TraitKit"],
      swiftSettings: strictSettings
    ),
    .target(
      name: "CTraitKitBenchSupport",
      path: "Benchmarks/CTraitKitBenchSupport"
    ),
    .executableTarget(
      name: "TraitKitBenchmarks",
      dependencies: ["TraitKit", "TraitKitLegacy", "CTraitKitBenchSupport"],
      path: "Benchmarks/TraitKitBenchmarks",
      // The benchmark measures the deprecated legacy adapter on purpose.
      swiftSettings: strictSettings + [.treatWarning("DeprecatedDeclaration", as: .warning)]
    ),
    .testTarget(
      name: "TraitKitTests",
      dependencies: ["TraitKit"],
      swiftSettings: strictSettings
    ),
    // The benchmark's harness: options, output files, the callback-count check, the reports;
    // and, with its allocation counter, the engine's allocation-free steady state.
    .testTarget(
      name: "TraitKitBenchmarksTests",
      dependencies: ["TraitKit", "TraitKitBenchmarks"],
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "TraitKitLegacyTests",
      dependencies: ["TraitKit", "TraitKitLegacy"],
      // The legacy adapter is deprecated on purpose; its own tests use it and say so here, for
      // this target only.
      swiftSettings: strictSettings + [.treatWarning("DeprecatedDeclaration", as: .warning)]
    ),
  ],
  swiftLanguageModes: [.v6]
)
