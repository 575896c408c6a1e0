// MissingPrerequisite: what a test throws when a program, peer or privilege it needs is missing — a failure that
// says what to install, never a skip.

/// A test's prerequisite (a program, a peer, a privilege) is missing. Thrown from a test, it fails the test with
/// this reason: tests never skip (a skipped test can no longer fail, and scripts/test.sh refuses a run with skips).
/// A plain value, usable from any thread.
public struct MissingPrerequisite: Error, CustomStringConvertible, Sendable {
    /// What is missing and how to get it (e.g. "tmux is missing (Debian tmux; scripts/setup.sh installs it)").
    public let description: String

    /// A missing prerequisite described by `description`.
    public init(_ description: String) { self.description = description }
}
