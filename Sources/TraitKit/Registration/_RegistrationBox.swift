/// What to call for a registration that is not a plain handler closure, and the exact traits when
/// the entry's filter cannot stand for them.
///
/// A handler closure whose traits the filter summarizes exactly is kept in the entry itself
/// (``_InlineHandler``): no box. The other forms keep one box each: one subclass per form holds
/// the target and action (or the legacy closure) exactly as they were given, so that a delivery
/// reaches them through this one object and one virtual call, with no wrapper closure.
class _RegistrationBox {
  /// The observed traits when the entry's summary cannot stand for them exactly (an index beyond
  /// `_TraitFilter.lastSummarizedIndex`), or, for a registration that observes every trait, the
  /// traits its owner declared interesting (used only to count wasted legacy calls); otherwise
  /// nil, which keeps a box in a smaller allocation.
  let traitList: _TraitList?

  init(traits: _TraitIndexSet, keepingTraits: Bool = false) {
    traitList = keepingTraits || !traits.isSummarizedExactly ? _TraitList(traits) : nil
  }

  /// Calls the registration for `node`; returns `false` when its target is gone.
  func call(_ node: TraitNode, _ previous: TraitCollection) -> Bool {
    preconditionFailure("_RegistrationBox.call(_:_:) is abstract")
  }
}

@available(*, unavailable)
extension _RegistrationBox: Sendable {}

/// A registration's exact traits, kept apart from its box only when needed.
final class _TraitList {
  let set: _TraitIndexSet
  init(_ set: _TraitIndexSet) { self.set = set }
}

@available(*, unavailable)
extension _TraitList: Sendable {}

/// An untyped closure: the legacy adapter's, or a handler whose traits the filter cannot summarize
/// exactly (its trait list is then needed for the change check).
final class _ClosureBox: _RegistrationBox {
  let closure: (TraitNode, TraitCollection) -> Void

  init(traits: _TraitIndexSet, closure: @escaping (TraitNode, TraitCollection) -> Void) {
    self.closure = closure
    super.init(traits: traits, keepingTraits: true)
  }

  override func call(_ node: TraitNode, _ previous: TraitCollection) -> Bool {
    closure(node, previous)
    return true
  }
}

/// An action without arguments on the observed node itself (not retained: it is the node).
final class _SelfActionBox<Target: AnyObject>: _RegistrationBox {
  let action: (Target) -> () -> Void

  init(traits: _TraitIndexSet, action: @escaping (Target) -> () -> Void) {
    self.action = action
    super.init(traits: traits)
  }

  override func call(_ node: TraitNode, _ previous: TraitCollection) -> Bool {
    action(unsafeDowncast(node, to: Target.self))()
    return true
  }
}

/// An action without arguments on a weakly held target.
final class _TargetActionBox<Target: AnyObject>: _RegistrationBox {
  weak var target: Target?
  let action: (Target) -> () -> Void

  init(traits: _TraitIndexSet, target: Target, action: @escaping (Target) -> () -> Void) {
    self.target = target
    self.action = action
    super.init(traits: traits)
  }

  override func call(_ node: TraitNode, _ previous: TraitCollection) -> Bool {
    guard let target else { return false }
    action(target)()
    return true
  }
}

/// An action taking the observed node, on the node itself.
final class _SelfActionBox1<Target: AnyObject, Observed: TraitEnvironment>: _RegistrationBox {
  let action: (Target) -> (Observed) -> Void

  init(traits: _TraitIndexSet, action: @escaping (Target) -> (Observed) -> Void) {
    self.action = action
    super.init(traits: traits)
  }

  override func call(_ node: TraitNode, _ previous: TraitCollection) -> Bool {
    action(unsafeDowncast(node, to: Target.self))(unsafeDowncast(node, to: Observed.self))
    return true
  }
}

/// An action taking the observed node, on a weakly held target.
final class _TargetActionBox1<Target: AnyObject, Observed: TraitEnvironment>: _RegistrationBox {
  weak var target: Target?
  let action: (Target) -> (Observed) -> Void

  init(
    traits: _TraitIndexSet,
    target: Target,
    action: @escaping (Target) -> (Observed) -> Void
  ) {
    self.target = target
    self.action = action
    super.init(traits: traits)
  }

  override func call(_ node: TraitNode, _ previous: TraitCollection) -> Bool {
    guard let target else { return false }
    action(target)(unsafeDowncast(node, to: Observed.self))
    return true
  }
}

/// An action taking the observed node and its previous collection, on the node itself.
final class _SelfActionBox2<Target: AnyObject, Observed: TraitEnvironment>: _RegistrationBox {
  let action: (Target) -> (Observed, TraitCollection) -> Void

  init(traits: _TraitIndexSet, action: @escaping (Target) -> (Observed, TraitCollection) -> Void) {
    self.action = action
    super.init(traits: traits)
  }

  override func call(_ node: TraitNode, _ previous: TraitCollection) -> Bool {
    action(unsafeDowncast(node, to: Target.self))(unsafeDowncast(node, to: Observed.self), previous)
    return true
  }
}

/// An action taking the observed node and its previous collection, on a weakly held target.
final class _TargetActionBox2<Target: AnyObject, Observed: TraitEnvironment>: _RegistrationBox {
  weak var target: Target?
  let action: (Target) -> (Observed, TraitCollection) -> Void

  init(
    traits: _TraitIndexSet,
    target: Target,
    action: @escaping (Target) -> (Observed, TraitCollection) -> Void
  ) {
    self.target = target
    self.action = action
    super.init(traits: traits)
  }

  override func call(_ node: TraitNode, _ previous: TraitCollection) -> Bool {
    guard let target else { return false }
    action(target)(unsafeDowncast(node, to: Observed.self), previous)
    return true
  }
}
