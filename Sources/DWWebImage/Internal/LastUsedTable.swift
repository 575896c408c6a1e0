// LastUsedTable: a string-keyed table that keeps its last used entry apart, so repeated uses of one key compare it
// instead of hashing it.

/// A dictionary keyed by strings (paths) whose entry used last is held apart from the others: callers that use one
/// key many times in a row (a cache writing into one space, downloads into one partial folder) pay a string
/// comparison — most often of the very same string, which is one pointer compare — instead of hashing the path on
/// every use. Any other key moves the current entry back into the dictionary.
///
/// Thread safety: a value; its owner keeps it behind its one lock.
struct LastUsedTable<Value> {
    /// Every entry but `current`'s.
    private var others: [String: Value] = [:]
    private var current: (key: String, value: Value)?

    /// `key`'s entry, which becomes the current one; setting nil removes it.
    subscript(key: String) -> Value? {
        mutating get {
            if let current, current.key == key { return current.value }
            guard let value = others.removeValue(forKey: key) else { return nil }
            if let current { others[current.key] = current.value }
            current = (key, value)
            return value
        }
        set {
            if let current, current.key == key {
                self.current = newValue.map { (key, $0) }
                return
            }
            if let current { others[current.key] = current.value }
            others[key] = nil
            current = newValue.map { (key, $0) }
        }
    }

    /// Every entry.
    var values: [Value] { Array(others.values) + (current.map { [$0.value] } ?? []) }

    /// Changes every entry with `change`.
    mutating func modifyAll(_ change: (inout Value) -> Void) {
        for key in others.keys { change(&others[key]!) }
        if current != nil { change(&current!.value) }
    }

    /// Removes `key`'s entry and returns it.
    mutating func removeValue(forKey key: String) -> Value? {
        if let current, current.key == key {
            self.current = nil
            return current.value
        }
        return others.removeValue(forKey: key)
    }
}

extension LastUsedTable: Sendable where Value: Sendable {}
