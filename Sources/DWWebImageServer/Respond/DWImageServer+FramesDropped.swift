// X-Frames-Dropped: an animation served as its first frame by its budget says how many frames it lost, on every
// answer of that variant, from whichever cache it comes.
import DWWebImage
import DWWebImageProcessing
import Foundation
import HTTPTypes

extension DWImageServer {
    /// `X-Frames-Dropped: N`: the answer is an animation's first frame, its N other frames over the budget
    /// (``DWVariantPlan/framePixelBudget``). Never sent under `--max-animation-frames` or `maf:` (imgproxy sends none).
    static let framesDroppedHeader = HTTPField.Name("X-Frames-Dropped")!

    /// Whether `image`, made by `plan`, may be an animation its budget cut to one frame: a budgeted plan, and a
    /// single frame in a format that writes animations (GIF, WebP); anything else never carries the header.
    static func mayHaveDroppedFrames(_ plan: DWVariantPlan, _ image: DWImage) -> Bool {
        plan.framePixelBudget != nil && image.frameCount == 1 && image.format.savesAnimation
    }

    /// The key the count of frames `plan` dropped from `source` is kept under: beside the variant's own key
    /// (``DWImageProcessors/cacheKey(url:processors:)``), under the same source, so a purge of the source drops it.
    static func framesDroppedKey(source: String, plan: DWVariantPlan) -> String {
        DWImageProcessors.cacheKey(url: source, identifiers: [plan.identifier, "frames-dropped"])
    }

    /// The frames the job's plan dropped from its source to make `image` (nil: none, or not known). A variant
    /// rendered for this request knows its original (``DWImage/original``): a count over 0 is then kept under
    /// ``framesDroppedKey(source:plan:)`` (memory now, the disk in the background; memory only for `local://`), so
    /// an answer from the memory or disk cache (which hold bytes only) reads it back;
    /// ``sharedVariant(of:plan:storage:)`` keeps it in the result storage too. Only a candidate
    /// (``mayHaveDroppedFrames(_:_:)``) costs a lookup. On the caller's thread.
    func framesDropped(_ job: DWImageJob, _ image: DWImage) -> Int? {
        guard let plan = job.plan, Self.mayHaveDroppedFrames(plan, image) else { return nil }
        let key = Self.framesDroppedKey(source: job.url.source, plan: plan)
        guard let original = image.original else {
            return manager.cache.objCache(forKey: key).flatMap(Self.framesDroppedCount)
        }
        let dropped = original.frameCount - image.frameCount
        guard dropped > 0 else { return nil }
        keepFramesDropped(dropped, forKey: key, memoryOnly: job.isLocal)
        return dropped
    }

    /// `count` under `key` in this instance's cache: memory at once, the disk write on the cache's write queue.
    func keepFramesDropped(_ count: Int, forKey key: String, memoryOnly: Bool = false) {
        let cache = manager.cache
        let policy = cache.cachePolicy
        let data = Data(String(count).utf8)
        if policy.contains(.memory) { try? cache.store(data, forKey: key, policy: .memory) }
        guard policy.contains(.disk), !memoryOnly else { return }
        cache.writeInBackground(data, forKey: key)
    }

    /// What is kept under ``framesDroppedKey(source:plan:)`` for `image`, rendered by `plan` for this request: the
    /// count of frames dropped in decimal ASCII; nil when none were (or `image` comes from a cache).
    static func framesDroppedRecord(_ plan: DWVariantPlan, _ image: DWImage) -> Data? {
        guard mayHaveDroppedFrames(plan, image), let original = image.original, original.frameCount > image.frameCount
        else { return nil }
        return Data(String(original.frameCount - image.frameCount).utf8)
    }

    /// A kept count (decimal ASCII, over 0), or nil.
    static func framesDroppedCount(_ data: Data) -> Int? {
        guard data.count <= 20, let count = Int(String(decoding: data, as: UTF8.self)), count > 0 else { return nil }
        return count
    }

    /// With result storage: a variant made here that dropped frames has its count stored beside it; one read from
    /// the store that may have dropped some has its count (if stored) copied into this instance's cache. The
    /// count's read is not counted in `/metrics` (most single-frame variants have none to find); its write is.
    /// On the request's task.
    func shareFramesDropped(
        _ image: DWImage, made: Bool, source: String, plan: DWVariantPlan,
        storage: DWResultStorage
    ) async {
        guard Self.mayHaveDroppedFrames(plan, image) else { return }
        let key = Self.framesDroppedKey(source: source, plan: plan)
        if made {
            guard let record = Self.framesDroppedRecord(plan, image) else { return }
            storage.store(record, variantKey: key, contentType: "text/plain")
        } else if let data = try? await storage.client.get(storage.location(forVariantKey: key)),
            let count = Self.framesDroppedCount(data)
        {
            keepFramesDropped(count, forKey: key)
        }
    }
}
