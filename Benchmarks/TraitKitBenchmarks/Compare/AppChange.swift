/// One change a workload makes: override writes at one node, followed by an update pass.
struct AppChange: Sendable {
  /// What a change does to the tree, according to the model.
  struct Effect: Sendable {
    /// Nodes whose collection changed: the legacy adapter's callbacks.
    var changedNodes = 0
    /// Nodes that use a changed trait: the registrations' callbacks.
    var usingNodes = 0
    /// `usingNodes` by kind.
    var usingByKind: [AppNodeKind: Int] = [:]
    /// The change as the floor performs it: each trait's new value at the node, and whether the
    /// node overrides it afterwards.
    var floorWrites: [(trait: AppTrait, value: Int, overrides: Bool)] = []
  }

  /// The node whose overrides change.
  let node: Int
  /// The new overrides; nil removes one.
  let writes: [(trait: AppTrait, value: Int?)]
}
