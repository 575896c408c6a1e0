// DWServedBytes: each served image's response body and ETag, made once per image, not once per request.
import DWLocking
import Foundation
import Hummingbird

/// A hot variant is answered thousands of times a second from the same bytes of the memory cache; hashing them
/// (SHA-256 for the ETag) and copying them into a new `ByteBuffer` on every request cost more than the rest of the
/// answer. This table keeps, per image buffer, the `ByteBuffer` (written to the socket as it is: NIO shares its
/// storage, nothing is copied per request) and the ETag.
///
/// An entry is found by the identity of the image's bytes (address and length of the `Data` the memory cache hands
/// out for every hit) and holds that `Data`, so the address cannot be reused by other bytes while the entry lives:
/// a new image for the same key (a new transform, a revalidated source) is new bytes and a new entry. Oldest entries
/// go first once more than ``byteBudget`` bytes or ``capacity`` entries are held. A body is kept only when the same
/// bytes are served a second time: a cold variant, answered once, would otherwise hold a copy of its bytes (and its
/// `Data`, past the memory cache's eviction) that no request reads again, and over many new variants the table stays
/// full of them. The first serve is remembered by identity only, for about the last ``capacity`` first serves: other
/// bytes of the same length at a reused address count as a second serve (they only get a copy kept: the ETag is
/// always made from the bytes). One lock; any thread.
final class DWServedBytes: Sendable {
    /// What a response needs from the image bytes.
    struct Body: Sendable {
        let buffer: ByteBuffer
        let etag: String
    }

    private struct Identity: Hashable {
        let address: UInt
        let count: Int
    }

    private struct Entry {
        let data: Data
        let body: Body
    }

    private struct Table {
        var entries: [Identity: Entry] = [:]
        var order: [Identity] = []
        var head = 0
        var bytes = 0
        /// Identities served once and not kept, and their arrival order (a ring of at most `capacity`).
        var once = Set<Identity>()
        var onceOrder: [Identity] = []
        var onceNext = 0

        /// Whether `identity` was served once before (and is now forgotten as such); else remembers it.
        mutating func servedBefore(_ identity: Identity, capacity: Int) -> Bool {
            if once.remove(identity) != nil { return true }
            once.insert(identity)
            if onceOrder.count < capacity {
                onceOrder.append(identity)
            } else {
                once.remove(onceOrder[onceNext])
                onceOrder[onceNext] = identity
                onceNext = (onceNext + 1) % capacity
            }
            return false
        }
    }

    /// Bytes of bodies held at most (each also lives in the memory cache, so this is what the table adds).
    let byteBudget: Int
    /// Entries held at most.
    let capacity: Int
    private let table = DWLock(Table())

    /// A table holding at most `byteBudget` bytes of bodies and `capacity` (at least 1) entries.
    init(byteBudget: Int = 16 * 1024 * 1024, capacity: Int = 4096) {
        self.byteBudget = byteBudget
        self.capacity = max(1, capacity)
    }

    /// The body and ETag of `data`: from the table when these exact bytes were kept, else made now (and kept when
    /// they were served once before and fit the budget).
    func body(for data: Data) -> Body {
        let identity = data.withUnsafeBytes { Identity(address: UInt(bitPattern: $0.baseAddress), count: $0.count) }
        // Tiny Data keeps its bytes inline (no stable address): not worth keeping anyway.
        let cacheable = identity.count >= 64 && identity.count <= byteBudget / 4
        if cacheable, let body = table.withLock({ $0.entries[identity]?.body }) { return body }
        let body = Body(buffer: ByteBuffer(bytes: data), etag: DWETag.of(data))
        guard cacheable else { return body }
        table.withLock { t in
            guard t.entries[identity] == nil, t.servedBefore(identity, capacity: capacity) else { return }
            t.entries[identity] = Entry(data: data, body: body)
            t.order.append(identity)
            t.bytes += identity.count
            while t.bytes > byteBudget || t.entries.count > capacity, t.head < t.order.count {
                if let gone = t.entries.removeValue(forKey: t.order[t.head]) { t.bytes -= gone.data.count }
                t.head += 1
            }
            if t.head > 1024 && t.head * 2 > t.order.count {  // drop the evicted prefix now and then
                t.order.removeFirst(t.head)
                t.head = 0
            }
        }
        return body
    }

    /// Bytes of bodies held now: the tests' view of the keeping policy (nothing in the server reads it).
    var heldBytes: Int { table.withLock { $0.bytes } }
}
