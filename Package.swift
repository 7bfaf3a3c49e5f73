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
  products: [
    .library(name: "TraitKit", targets: ["TraitKit"])
  ],
  targets: [
    .target(
      name: "TraitKit",
      swiftSettings: strictSettings
    ),
    .testTarget(
      name: "TraitKitTests",
      dependencies: ["TraitKit"],
      swiftSettings: strictSettings
    ),
  ],
  swiftLanguageModes: [.v6]
)
