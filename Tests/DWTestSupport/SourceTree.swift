// SourceTree: the one way the tests find the repository's own files (fixtures, scripts, deploy files), from this
// file's place in the tree, whichever test target asks.
import Foundation

/// The repository's files, by path from its root. Any thread.
public enum SourceTree {
    /// The repository's root, the folder of Package.swift (this file is Tests/DWTestSupport/SourceTree.swift).
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `path` under the root (`"bench/serve/fleet_vcl.py"`).
    public static func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    /// The committed images and their scripts (`make_fixtures.py`, `make_animations.py`) of the processing tests.
    public static let processingFixtures = url("Tests/DWWebImageProcessingTests/Fixtures")

    /// The format corpus: one file per format and variant, and what each reference decoder reads in it.
    public static let formatCorpus = url("Tests/DWWebImageTests/Fixtures/formats")
}
