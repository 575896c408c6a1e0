// Handoff: a chain of processors passes its canvas along, so step N+1 starts from step N's pixels, not its encoding.
import DWLocking
import DWWebImage
import Foundation

/// Each processor must return a real encoded image, so a chain encodes after every step; without this table each
/// step would also decode the previous step's output, and a lossy format would lose quality at every step.
/// A processor's output is remembered here beside the canvas it was encoded from; when that exact `Data` (the same
/// buffer, which the entry keeps alive, so its address cannot be reused) comes back as the input of the next
/// processor, its canvas is taken instead of decoding. The final output is encoded once from the original decode.
///
/// Eight entries and 32 MiB of pixels at most (oldest dropped first), each taken at most once. Guarded by one lock.
enum Handoff {
    private struct Entry {
        let data: Data
        let canvas: Canvas
        let bytes: Int
    }

    private static let entries = DWLock([Entry]())
    private static let capacity = 8
    /// Pixels held at most: a single-step chain's canvas is never taken and waits here to be pushed out.
    private static let byteBudget = 32 * 1024 * 1024

    /// Remembers that `data` was encoded from `canvas`.
    /// Only canvases computed into memory are kept (their pixels are small: see ``Encoder/materializeLimit``);
    /// a streaming one would decode its source again.
    static func remember(_ data: Data, canvas: Canvas) {
        guard canvas.isMaterialized else { return }
        let bytes = canvas.frames.reduce(0) { $0 + $1.area * $1.bands }
        entries.withLock { list in
            list.append(Entry(data: data, canvas: canvas, bytes: bytes))
            var total = list.reduce(0) { $0 + $1.bytes }
            while list.count > capacity || total > byteBudget {
                total -= list.removeFirst().bytes
            }
        }
    }

    /// The canvas `image.data` was encoded from, if this process made it and nobody has taken it; else nil.
    static func take(_ image: DWImage) -> Canvas? {
        let key = identity(image.data)
        guard key.count > 0 else { return nil }
        return entries.withLock { list in
            guard let i = list.firstIndex(where: { identity($0.data) == key }) else { return nil }
            return list.remove(at: i).canvas
        }
    }

    /// Outputs of streaming canvases (not kept above) whose metadata policy is not the default, so the next step,
    /// which decodes them again, still keeps what ``DWMetadataOptions`` asked for. Eight at most, taken once.
    private static let policies = DWLock([(data: Data, policy: MetadataPolicy)]())

    /// Remembers that `data` was encoded with `policy` (only a policy other than the default).
    static func remember(_ data: Data, policy: MetadataPolicy) {
        guard policy != MetadataPolicy() else { return }
        policies.withLock { list in
            list.append((data, policy))
            if list.count > capacity { list.removeFirst() }
        }
    }

    /// The policy `image.data` was encoded with, if remembered and not taken yet.
    static func takePolicy(_ image: DWImage) -> MetadataPolicy? {
        let key = identity(image.data)
        guard key.count > 0 else { return nil }
        return policies.withLock { list in
            guard let i = list.firstIndex(where: { identity($0.data) == key }) else { return nil }
            return list.remove(at: i).policy
        }
    }

    /// Where a `Data`'s bytes live and how many there are.
    private static func identity(_ data: Data) -> (address: UInt, count: Int) {
        data.withUnsafeBytes { (UInt(bitPattern: $0.baseAddress), $0.count) }
    }
}
