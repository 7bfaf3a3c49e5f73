/// A handler closure kept in its registration's entry, as plain data that owns one reference.
///
/// Registration tables are POD buffers that manage their references by hand (see
/// ``_NodeObservers``). Keeping a closure handler's two words here, rather than in a heap box of
/// its own, saves an allocation and a free per registration, and a cache miss at each end of its
/// life (traitkit-bench S6).
///
/// A delivery calls the closure on the entry's reference, without retaining it, as it called a
/// box's closure through a guaranteed reference: the entry keeps the closure until no delivery
/// walks its table.
@usableFromInline
struct _InlineHandler {
  typealias Function = (TraitNode, TraitCollection) -> Void

  /// The closure's function pointer and context, owned (+1).
  @usableFromInline var bits: (UInt, UInt)

  /// The closure as memory holds it.
  ///
  /// A nominal wrapper, because memory typed by a bare function type stores the closure
  /// reabstracted, through a thunk that allocates and takes its arguments indirectly; a struct
  /// field of a concrete function type stores it as it is.
  private struct Stored {
    let function: Function
  }

  /// The given words, as an entry stores another callee in their place (see
  /// `_Registration.box`).
  ///
  /// Neither call nor release it unless `bits` came from a handler.
  init(bits: (UInt, UInt)) {
    self.bits = bits
  }

  /// Takes over `handler`'s reference to its closure; ``release()`` gives it back.
  ///
  /// The closure's bits are taken as they are: `TraitEnvironment` is class-bound, so a generic
  /// `Observed` parameter is passed directly, as one guaranteed reference, exactly as the
  /// `TraitNode` that ``callAsFunction(_:_:)`` passes. Only bits move: a conversion between the
  /// two function types would allocate a wrapper closure.
  ///
  /// - Precondition: every node this handler is called with is an `Observed`.
  // NB: inlinable so that the client specializes it: unspecialized, each call would look up the
  // generic metadata of `_ObservedHandler<Observed>` (traitkit-bench S6).
  @inlinable
  init<Observed>(retaining handler: consuming _ObservedHandler<Observed>) {
    var bits: (UInt, UInt) = (0, 0)
    // NB: moved in, not copied: a copy costs a retain now and a release when `handler` goes.
    var owned = Optional(handler)
    withUnsafeMutablePointer(to: &bits) {
      $0.withMemoryRebound(to: _ObservedHandler<Observed>.self, capacity: 1) {
        $0.initialize(to: owned.take().unsafelyUnwrapped)
      }
    }
    self.bits = bits
  }

  /// The function of a closure that counts a run's call of a tombstone as not called (see
  /// `_Registration.silenceHandler()`); the context a tombstone keeps goes unread.
  // NB: a closure without captures, whose context is none: called with another closure's
  // context, its function reads none.
  static let tombstoneFunction: UInt = {
    let stored = Stored { node, _ in
      node._observers.unsafelyUnwrapped.runFrame.unsafelyUnwrapped.pointee.uncalled &+= 1
    }
    return unsafeBitCast(stored, to: (UInt, UInt).self).0
  }()

  /// The closure, for a box that needs it.
  var function: Function {
    unsafeBitCast(bits, to: Stored.self).function
  }

  /// Drops the reference taken at initialization; call it once, and never call the handler after.
  // NB: destroying a closure value releases its context, and nothing else; done here directly,
  // rather than through the outlined destroy of `Stored`, which reaches the release through its
  // type's value witness table (traitkit-bench S6).
  func release() {
    guard let context = UnsafeRawPointer(bitPattern: bits.1) else { return }
    Unmanaged<_ClosureContext>.fromOpaque(context).release()
  }

  /// Calls the closure, borrowing the entry's reference.
  ///
  /// - Precondition: the reference outlives the call (the table defers releases while a
  ///   delivery walks it).
  @inline(__always)
  func callAsFunction(_ node: TraitNode, _ previous: TraitCollection) {
    // NB: a copy of the closure would retain and release its context around the call, which
    // doubles the cost of a delivery (traitkit-bench S1). Instead the closure moves out of a copy
    // of the bits, is called, and moves back; the local it went through is left holding a
    // closure without context, whose release does nothing.
    var bits = self.bits
    withUnsafeMutablePointer(to: &bits) {
      $0.withMemoryRebound(to: Stored.self, capacity: 1) { stored in
        var borrowed = stored.move()
        borrowed.function(node, previous)
        withUnsafeMutablePointer(to: &borrowed) {
          stored.moveInitialize(from: $0, count: 1)
          $0.initialize(to: Stored(function: { _, _ in }))
        }
      }
    }
  }
}

@available(*, unavailable)
extension _InlineHandler: Sendable {}

/// A closure's context, as ``_InlineHandler/release()`` sees it.
///
/// A native heap object, whose release needs no more than its reference count. Never
/// instantiated.
private final class _ClosureContext {}

/// A handler closure as its registration declared it.
///
/// A nominal wrapper, so that the closure crosses into the engine's non-generic storage without
/// being reabstracted (see ``_InlineHandler/Stored``).
@usableFromInline
struct _ObservedHandler<Observed: TraitEnvironment> {
  @usableFromInline let function: (Observed, TraitCollection) -> Void

  @inlinable
  init(_ function: @escaping (Observed, TraitCollection) -> Void) {
    self.function = function
  }
}

@available(*, unavailable)
extension _ObservedHandler: Sendable {}
