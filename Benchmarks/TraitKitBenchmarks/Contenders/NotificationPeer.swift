import Foundation

/// The NotificationCenter peer: a private center, one notification name per trait, block
/// observers with `object:` set to the observed node.
final class NotificationPeer {
  let center = NotificationCenter()
  let names = (0..<32).map { Notification.Name("traitkit.bench.trait\($0)") }
  /// One object per tree node, the `object:` of its notifications.
  var objects: [NotificationNode]
  var tokens: [any NSObjectProtocol] = []

  init(count: Int) {
    objects = (0..<count).map { _ in NotificationNode() }
  }

  /// Adds a block observer of `trait` at `node`.
  @discardableResult
  func observe(
    _ node: Int,
    trait: Int,
    _ block: @escaping @Sendable (Notification) -> Void
  )
    -> any NSObjectProtocol
  {
    let token = center.addObserver(
      forName: names[trait],
      object: objects[node],
      queue: nil,
      using: block
    )
    tokens.append(token)
    return token
  }

  /// Posts the change of `trait` at `node`.
  func post(_ node: Int, trait: Int) {
    center.post(name: names[trait], object: objects[node])
  }

  /// The one name of a "did change" notification, for observers of every trait, as a legacy
  /// `traitCollectionDidChange` would be posted.
  let anyChange = Notification.Name("traitkit.bench.traitCollectionDidChange")

  /// Adds a block observer of every change at `node`.
  func observeAnyChange(_ node: Int, _ block: @escaping @Sendable (Notification) -> Void) {
    tokens.append(
      center.addObserver(forName: anyChange, object: objects[node], queue: nil, using: block)
    )
  }

  /// Posts that some trait changed at `node`.
  func postAnyChange(_ node: Int) {
    center.post(name: anyChange, object: objects[node])
  }

  deinit {
    for token in tokens { center.removeObserver(token) }
  }
}

/// The identity of one node for NotificationCenter.
final class NotificationNode: Sendable {}

/// A callback counter NotificationCenter's `@Sendable` blocks can capture.
///
/// NB: the benchmark posts and observes on one thread; `@unchecked` only satisfies the block
/// type's `Sendable` requirement.
final class SendableCounter: @unchecked Sendable {
  var count = 0

  func take() -> Int {
    defer { count = 0 }
    return count
  }
}
