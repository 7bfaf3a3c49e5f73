extension TraitGraph {
  /// Whether TraitKit was built with its internal invariant checks
  /// (`-DTRAITKIT_INTERNAL_CHECKS`), which make every update pass verify the whole graph.
  package static var _internalChecksEnabled: Bool {
    #if TRAITKIT_INTERNAL_CHECKS
    true
    #else
    false
    #endif
  }

  /// Verifies the graph's invariants, trapping with a message that names the one broken; a no-op
  /// unless built with `-DTRAITKIT_INTERNAL_CHECKS`.
  ///
  /// - Complexity: O(*n* + *r*) for *n* nodes and *r* registrations, when enabled.
  package func _checkInvariants() {
    #if TRAITKIT_INTERNAL_CHECKS
    var nodes = 0
    var registrations = 0
    var stack = [root]
    precondition(root._parent == nil, "Invariant: the root has no parent")
    while let node = stack.popLast() {
      nodes += 1
      precondition(node._graph === self, "Invariant: every node of the tree points at its graph")
      registrations += node._observers?.liveCount ?? 0
      if node._resolvedEpoch == _epoch {
        precondition(
          node._resolvedCell.word
            == TraitCollection._countWord(node._resolvedRef.takeUnretainedValue().count),
          "Invariant: a current node's collection cell holds its storage's count"
        )
        precondition(
          node._parent.map { $0._resolvedEpoch == _epoch } ?? true,
          "Invariant: a current node's parent is current"
        )
      }
      precondition(
        node._observedHere.contains(node._ownObserved),
        "Invariant: a node's observed summary covers what its tables observe"
      )
      precondition(
        node._subtreeObserved.contains(node._observedHere),
        "Invariant: a subtree summary covers its node's own summary"
      )
      var below = node._ownObserved
      for child in node._children.nodes {
        precondition(child._parent === node, "Invariant: a child's parent lists it as a child")
        below |= child._subtreeObserved
        stack.append(child)
      }
      precondition(
        node._subtreeObserved.contains(below),
        "Invariant: a subtree summary covers its node's and its children's summaries"
      )
      if let observers = node._observers { observers._checkInvariants() }
    }
    precondition(nodes == _liveNodes, "Invariant: liveNodes counts the nodes of the tree")
    precondition(
      registrations == _liveRegistrations,
      "Invariant: liveRegistrations counts the live registrations of the tree's nodes"
    )
    #endif
  }
}

extension _NodeObservers {
  /// Verifies the table's invariants (see ``TraitGraph/_checkInvariants()``).
  func _checkInvariants() {
    #if TRAITKIT_INTERNAL_CHECKS
    var live = 0
    for position in 0..<count {
      if position > 0 {
        precondition(
          entries[position - 1].sequence < entries[position].sequence,
          "Invariant: registrations are sorted by number"
        )
      }
      if entries[position].filterIsExact {
        precondition(
          entries[position].continuesTraits == hasPredecessorSummary(at: position),
          "Invariant: an exact registration continues traits exactly when the entry before it "
            + "has its summary"
        )
      }
      if entries[position].isLive {
        live += 1
        precondition(
          !entries[position].calleeReleased,
          "Invariant: a live registration's callee is not released"
        )
        precondition(
          entries[position].keepsHandlerInline == (entries[position].box == nil),
          "Invariant: a registration's state says whether its callee is a handler kept inline"
        )
        precondition(
          self.observed.contains(entries[position].filter),
          "Invariant: the table's summary covers each live registration"
        )
        precondition(
          (0..<Int32(_snapshotSlotCount)).contains(entries[position].snapshot),
          "Invariant: a live registration's baseline is a snapshot slot"
        )
        let summary = entries[position].summary
        precondition(
          entries[position].observesAllTraits
            ? summary == ~0
            : summary != 0 && (!entries[position].filterIsExact || summary >> 63 == 0),
          "Invariant: a registration's summary is every trait for a legacy callback, and "
            + "otherwise not empty, and below bit 63 when it stands for its traits exactly"
        )
      }
    }
    precondition(live == liveCount, "Invariant: liveCount counts the live registrations")
    precondition(
      _snapshotSlotCount <= (1 << _Registration.snapshotBits),
      "Invariant: an entry's 27 bits number every snapshot slot"
    )
    precondition(
      self.freeSnapshots <= self.snapshotCount,
      "Invariant: a table's free snapshot slots are among its slots (compactIfIdle)"
    )
    precondition(
      count == 0 || entries[count - 1].sequence < self.nextSequence,
      "Invariant: a registration's number is below the table's next one"
    )
    precondition(
      count <= Int(self.capacity),
      "Invariant: a registration table's entries fit its allocation"
    )
    var uses = [Int32](repeating: 0, count: _snapshotSlotCount)
    for position in 0..<count where entries[position].isLive {
      uses[Int(entries[position].snapshot)] += 1
    }
    var held: Set<UnsafeMutableRawPointer> = []
    for slot in uses.indices {
      let state = _snapshotState(Int32(slot))
      precondition(
        state.uses == uses[slot] && state.isHeld == (uses[slot] > 0),
        "Invariant: a snapshot is held exactly while live registrations use it, once for each"
      )
      if state.isHeld {
        precondition(
          held.insert(baselineReference(Int32(slot)).toOpaque()).inserted,
          "Invariant: no two snapshots hold the same collection"
        )
      }
    }
    precondition(
      Int(self.freeSnapshots) == uses.dropFirst().count(where: { $0 == 0 }),
      "Invariant: a registration table counts its free snapshot slots beyond slot 0"
    )
    if self.extentSlot >= 0, self.extentEdits == self.edits,
      self.extentStart < self.extentEnd
    {
      let extent = Int(self.extentStart)..<Int(self.extentEnd)
      precondition(
        extent.upperBound <= count
          && extent.allSatisfy { position in
            entries[position].isLiveHandlerContinuingTraits(using: self.extentSlot)
              || !entries[position].isLive && entries[position].isSilenced
          },
        "Invariant: the extent a table keeps covers live handlers of its slot that continue "
          + "traits, and silenced tombstones"
      )
      let summaries = Set(extent.map { entries[$0].summary })
      precondition(summaries.count == 1, "Invariant: an extent's entries share their traits")
    }
    #endif
  }
}
