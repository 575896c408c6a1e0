// PartialBody: the body of one download across its attempts — in memory while small, on disk once worth keeping.
import Foundation
import DWLocking

/// The bytes of one download, kept across attempts so that each retry (and a later process) resumes instead of
/// starting over.
///
/// Bodies start in memory. Once one passes `spillThreshold` bytes and is resumable (a strong ETag or a
/// Last-Modified, no `Accept-Ranges: none`, no content coding), it moves to a ``PartialFile`` and streams there,
/// so large bodies cost disk, not memory, and survive a crash. Small ones are cheaper to fetch again than to
/// persist. Thread safety: every field is behind `state` (one lock); the engine thread appends, the thread that
/// judges the ended request (the engine thread or the manager's work queue) reads and decides, never at the same
/// time, but the lock keeps that honest.
final class PartialBody: Sendable {
    private struct State {
        var memory = Data()
        var file: PartialFile?
        var length: Int64 = 0
        var validator: ResumeValidator?
        var resumable = false
        var total: Int64?

        /// Lets go of the bytes held: the partial file (closed by the caller first) and the memory.
        mutating func dropBytes() {
            file = nil
            memory = Data()
            length = 0
        }
    }

    let url: String
    /// Where partials persist; nil = memory only (the caller asked for no disk caching).
    let store: PartialStore?
    /// Bytes held in memory before a resumable body moves to disk.
    let spillThreshold: Int
    private let state = DWLock(State())

    /// ``spillThreshold``'s default (``DWWebImageManager/Configuration/partialSpillThreshold``).
    static let defaultSpillThreshold = 256 * 1024

    init(url: String, store: PartialStore?, spillThreshold: Int = defaultSpillThreshold) {
        self.url = url
        self.store = store
        self.spillThreshold = spillThreshold
    }

    /// Picks up a partial an earlier download (or process) left on disk. Call once, before the first attempt.
    func loadExisting() {
        guard let store, let file = store.openExisting(url: url) else { return }
        state.withLock { s in
            s.file = file
            s.length = file.length
            s.validator = file.validator
            s.total = file.total
            s.resumable = file.validator != nil
        }
    }

    /// Bytes held.
    var length: Int64 { state.withLock { $0.length } }

    /// Whether all bytes held are in memory and at most `limit` of them (no partial file to close or record).
    func isSmallInMemory(atMost limit: Int64) -> Bool { state.withLock { $0.file == nil && $0.length <= limit } }

    /// Bytes held and the validator to resume them with; offset 0 when they cannot be resumed.
    var resumePoint: (offset: Int64, validator: ResumeValidator?) {
        state.withLock { s in s.resumable && s.length > 0 ? (s.length, s.validator) : (0, nil) }
    }

    /// Applies the decision taken on a response head: `.replace` drops what is held and adopts this response's
    /// validators; `.append` keeps it.
    func begin(_ outcome: HeadOutcome, head: DWResponseHead) {
        guard outcome == .replace else { return }
        state.withLock { s in
            s.memory = Data()
            s.length = 0
            // A coded body arrives decoded: its ranges would count coded bytes, so it is never resumed, and its
            // Content-Length is not the length of what is held.
            let encoded = head.isContentCoded
            let noRanges = head.acceptRanges?.lowercased() == "none"
            s.validator = ResumeValidator(head: head)
            s.resumable = s.validator != nil && !encoded && !noRanges
            s.total = encoded ? nil : head.contentLength
            if s.file == nil, !encoded, let length = head.contentLength, length > 0, length <= Int64(spillThreshold) {
                s.memory.reserveCapacity(Int(length))  // one allocation, not a doubling per 16 KiB chunk
            }
            if let file = s.file {
                if s.resumable, file.truncate() {
                    file.validator = s.validator
                    file.total = s.total
                    file.writeRecord(acceptRanges: head.acceptRanges?.lowercased() == "bytes")
                } else {
                    file.close(remove: true)
                    s.file = nil
                }
            }
        }
    }

    /// Appends a chunk of body; false if it could not be kept (the transfer should stop).
    func append(_ chunk: UnsafeRawBufferPointer) -> Bool {
        state.withLock { s in
            if let file = s.file {
                guard file.append(chunk) else {
                    // Disk full or gone: keep going in memory from what the file holds.
                    let held = file.mappedData() ?? Data()
                    file.close(remove: true)
                    s.file = nil
                    s.resumable = false
                    s.memory = held
                    s.memory.append(contentsOf: chunk)
                    s.length = Int64(s.memory.count)
                    return true
                }
                s.length = file.length
                return true
            }
            s.memory.append(contentsOf: chunk)
            s.length += Int64(chunk.count)
            if s.resumable, s.memory.count >= spillThreshold, let store, let file = store.create(url: url) {
                file.validator = s.validator
                file.total = s.total
                let moved = s.memory.withUnsafeBytes { file.append($0) }
                if moved {
                    file.writeRecord(acceptRanges: true)
                    s.file = file
                    s.memory = Data()
                } else {
                    file.close(remove: true)
                }
            }
            return true
        }
    }

    /// All the bytes held (memory-mapped when on disk).
    func data() -> Data {
        state.withLock { s in s.file?.mappedData() ?? s.memory }
    }

    /// Forgets everything held, on disk too.
    func discard() {
        state.withLock { s in
            s.file?.close(remove: true)
            s.dropBytes()
            s.validator = nil
            s.resumable = false
            s.total = nil
        }
    }

    /// The download ended without a result worth keeping for now: keep the bytes on disk for a later run
    /// (releasing the lock), keep memory for a retry in this process.
    func suspend() {
        state.withLock { s in
            guard let file = s.file else { return }
            file.writeRecord(acceptRanges: true)
            file.close(remove: false)
            s.dropBytes()
            s.resumable = false
        }
    }

    /// The download succeeded (and its bytes were handed on): remove the partial from disk.
    func finish() {
        state.withLock { s in
            s.file?.close(remove: true)
            s.dropBytes()
        }
    }
}
