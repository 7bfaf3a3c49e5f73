/// The numberings a registration table retired when its numbers ran out.
///
/// A table numbers its registrations in 32 bits. When the numbers run out, after 2^32
/// registrations on one node, it numbers its entries again from zero under a new serial, and
/// keeps their old numbers here, so that the tokens of the old numbering still find their
/// registrations.
final class _Renumberings {
  /// Each retired numbering, oldest first: its serial, and the numbers of the table's entries
  /// when it was retired, in entry order (entry *k* was numbered *k* in the next numbering).
  private var retired: [(serial: UInt64, sequences: [UInt32])] = []

  /// Records the numbering `serial` as retired, its entries having had `sequences`.
  func retire(serial: UInt64, sequences: [UInt32]) {
    retired.append((serial, sequences))
  }

  /// The number, in the current numbering, of the registration `token` stands for; nil when
  /// `token` is not of a retired numbering, or its entry was compacted away since.
  func sequence(of token: TraitChangeRegistration) -> UInt32? {
    guard var numbering = retired.firstIndex(where: { $0.serial == token.serial }) else {
      return nil
    }
    var sequence = token.sequence
    while numbering < retired.count {
      let sequences = retired[numbering].sequences
      let position = _firstPosition(notBelow: sequence, count: sequences.count) { sequences[$0] }
      guard position < sequences.count, sequences[position] == sequence else { return nil }
      sequence = UInt32(position)
      numbering += 1
    }
    return sequence
  }
}

/// The first position in `0..<count` whose number, as `number` gives it, is not below
/// `sequence`, or `count` when there is none.
///
/// - Precondition: the numbers increase with their positions.
@inline(__always)
func _firstPosition(
  notBelow sequence: UInt32,
  count: Int,
  _ number: (Int) -> UInt32
) -> Int {
  var low = 0
  var high = count
  while low < high {
    let middle = (low + high) / 2
    if number(middle) < sequence { low = middle + 1 } else { high = middle }
  }
  return low
}

@available(*, unavailable)
extension _Renumberings: Sendable {}
