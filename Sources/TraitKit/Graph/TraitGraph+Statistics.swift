extension TraitGraph {
  /// Exact counters for tests and benchmarks.
  public struct Statistics: Hashable, Sendable {
    /// Counters of one update pass.
    public struct Pass: Hashable, Sendable {
      /// The rounds the pass ran; 0 when the graph was clean.
      public var rounds = 0
      /// The nodes the pass visited, over all rounds.
      public var nodesVisited = 0
      /// The registration callbacks it delivered (legacy callbacks not included).
      public var callbacksDelivered = 0
      /// The legacy "did change" callbacks it delivered (see the `TraitKitLegacy` module).
      public var legacyCallbacksDelivered = 0
      /// The legacy callbacks that registering for the traits in use would have saved.
      ///
      /// A call counts when none of the traits the adopting node declared interesting changed.
      /// A node that declared no interesting traits counts no call here.
      public var wastedLegacyCallbacks = 0
      /// The automatic-tracking invalidations it ran.
      public var invalidationsDelivered = 0
    }

    /// The nodes in the graph's tree, the root included.
    public var liveNodes: Int
    /// The registrations of the nodes in the graph's tree.
    public var liveRegistrations: Int
    /// The counters of the last update pass.
    public var lastPass: Pass
  }

  /// The graph's counters: live nodes and registrations, and what the last pass did.
  public var statistics: Statistics {
    Statistics(
      liveNodes: _liveNodes,
      liveRegistrations: _liveRegistrations,
      lastPass: _lastPass
    )
  }
}
