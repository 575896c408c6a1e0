// DWTagIndex: which sources this instance served under each `tag:`, so a purge by tag finds their cached copies.
import DWLocking

/// Tag → the sources served with it (in the order first seen), at most ``maxEntries`` pairs in all: past that the
/// tags recorded longest ago are forgotten first (a purge of a forgotten tag still drops what the CDN holds by its
/// `xkey`, and a purge by source always works). Kept in memory: a restart forgets it. Thread safety: one ``DWLock``
/// (a leaf); callable from any thread or task.
final class DWTagIndex: Sendable {
    private struct State {
        var sources: [String: [String]] = [:]
        var known: Set<Pair> = []
        /// Tags in the order first recorded (the eviction order).
        var order: [String] = []
    }

    private struct Pair: Hashable {
        let tag: String
        let source: String
    }

    /// The most (tag, source) pairs kept.
    let maxEntries: Int
    private let state = DWLock(State())

    init(maxEntries: Int = 100_000) {
        self.maxEntries = max(1, maxEntries)
    }

    /// Notes that `source` was served under `tag` (a set lookup when it was noted before).
    func record(_ tag: String, source: String) {
        state.withLock { state in
            let pair = Pair(tag: tag, source: source)
            guard !state.known.contains(pair) else { return }
            state.known.insert(pair)
            if state.sources[tag] == nil { state.order.append(tag) }
            state.sources[tag, default: []].append(source)
            while state.known.count > maxEntries, !state.order.isEmpty {
                let oldest = state.order.removeFirst()
                for source in state.sources.removeValue(forKey: oldest) ?? [] {
                    state.known.remove(Pair(tag: oldest, source: source))
                }
            }
        }
    }

    /// The sources recorded under `tag`, forgetting them (they are being purged).
    func take(_ tag: String) -> [String] {
        state.withLock { state in
            guard let sources = state.sources.removeValue(forKey: tag) else { return [] }
            state.order.removeAll { $0 == tag }
            for source in sources { state.known.remove(Pair(tag: tag, source: source)) }
            return sources
        }
    }
}
