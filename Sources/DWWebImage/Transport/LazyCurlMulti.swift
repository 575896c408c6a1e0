// LazyCurlMulti: a manager's transfer engine, made when the first transfer needs it. A run answered from the cache
// never starts libcurl: no curl_global_init (OpenSSL's set-up: its config file, providers), no multi handle, no
// engine thread (a cached one-URL fetch pays only for what it uses).
import DWLocking

/// Holds a ``CurlMulti`` made on first use. Thread-safe: one lock guards the slot; the engine is made under it, so
/// two threads asking at once get the same one.
final class LazyCurlMulti: Sendable {
    private struct Slot {
        var engine: CurlMulti?
        var shutDown = false
    }
    private let slot = DWLock(Slot())

    /// The engine, made now if no transfer needed it before (any thread). Asked for after ``shutdown()``, it is
    /// made shut down, as an engine made at the start would be by then: it refuses transfers (they end cancelled).
    var engine: CurlMulti {
        let (engine, late) = slot.withLock { slot -> (CurlMulti, Bool) in
            if let engine = slot.engine { return (engine, false) }
            let engine = CurlMulti()
            slot.engine = engine
            return (engine, slot.shutDown)
        }
        if late { engine.shutdown() }
        return engine
    }

    /// The engine if one was made, else nil (reading statistics must not start one).
    var started: CurlMulti? { slot.withLock { $0.engine } }

    /// Stops the engine if one was made (see ``CurlMulti/shutdown()``: blocks until its thread has ended).
    func shutdown() {
        slot.withLock { slot -> CurlMulti? in
            slot.shutDown = true
            return slot.engine
        }?.shutdown()
    }
}
