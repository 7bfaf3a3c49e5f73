/// The name of `type` that `_typeName(_:qualified:)` gives, less what names the anonymous
/// context of a private or local type, so that a trait's default name and identifier are the
/// same in every process and every build.
///
/// The runtime names such a context by its address — `App.(unknown context at $55aa9e9daab4).Theme`
/// — which changes from one launch to the next, or, in some builds, by its file's
/// discriminator — `App.(Theme in _7A1F…)` — which other builds do not give. Both become
/// `App.Theme`. Two private types of one name in one module then share a default identifier,
/// which the registry reports when the second is first used.
func _stableTypeName(_ type: Any.Type, qualified: Bool) -> String {
  let name = _typeName(type, qualified: qualified)
  // NB: most names have no parenthesis: they are returned as they are.
  guard name.utf8.contains(UInt8(ascii: "(")) else { return name }
  var result = ""
  var rest = Substring(name)
  while let open = rest.firstIndex(of: "(") {
    result += rest[..<open]
    let tail = rest[open...]
    if tail.hasPrefix("(unknown context at $"), let close = tail.firstIndex(of: ")") {
      rest = tail[tail.index(after: close)...]
      if rest.first == "." { rest = rest.dropFirst() }
    } else if let (declared, after) = _discriminatedName(at: tail) {
      result += declared
      rest = after
    } else {
      // A tuple's or a function type's parenthesis.
      result.append("(")
      rest = tail.dropFirst()
    }
  }
  result += rest
  return result
}

/// The declared name in `(Name in _DISCRIMINATOR)` at the start of `text`, and what follows it;
/// nil when `text` starts otherwise.
private func _discriminatedName(at text: Substring) -> (Substring, Substring)? {
  let body = text.dropFirst()
  guard let separator = body.firstRange(of: " in _") else { return nil }
  let declared = body[..<separator.lowerBound]
  guard !declared.isEmpty, declared.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }),
    let close = body[separator.upperBound...].firstIndex(of: ")"),
    body[separator.upperBound..<close].allSatisfy({ $0.isLetter || $0.isNumber })
  else { return nil }
  return (declared, body[body.index(after: close)...])
}
