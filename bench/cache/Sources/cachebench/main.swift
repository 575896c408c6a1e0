// cachebench DIR: memory-hit and disk-hit latency of objCache(forKey:) (median, p99 over many lookups) and disk-hit
// throughput against reading the same entry files raw with read(2), for compression .none and .auto. Throughput
// counts image bytes delivered for hits and file bytes read for raw reads (entries carry ~150 bytes of header).
// Inputs: the image files in DIR (JPEG/PNG/GIF from bench/corpus/small). Prints Markdown rows.
import DWWebImage
import Foundation

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]
}

let args = CommandLine.arguments
guard args.count >= 2 else { fatalError("usage: cachebench DIR [LOOKUPS]") }
let corpus = URL(fileURLWithPath: args[1])
let lookups = args.count > 2 ? Int(args[2]) ?? 100_000 : 100_000
let names = try FileManager.default.contentsOfDirectory(atPath: corpus.path).sorted().prefix(1000)
let files = names.map { (name: $0, data: try! Data(contentsOf: corpus.appendingPathComponent($0))) }
let totalBytes = files.reduce(0) { $0 + $1.data.count }
let root = FileManager.default.temporaryDirectory.appendingPathComponent("cachebench-\(getpid())")
defer { try? FileManager.default.removeItem(at: root) }

// Memory hits: 100 small entries, looked up round-robin.
do {
    let cache = DWWebImageCache(rootDirectory: root, cacheSpace: "memory", memoryCountLimit: 200,
                                memoryCostLimit: 64 * 1024 * 1024)
    cache.cachePolicy = [.memory]
    for f in files.prefix(100) { cache.cacheObj(f.data, forKey: f.name) }
    var samples: [Double] = []
    samples.reserveCapacity(lookups)
    for i in 0..<lookups {
        let key = files[i % 100].name
        let t = now()
        precondition(cache.objCache(forKey: key) != nil)
        samples.append(Double(now() - t) / 1000)
    }
    print(String(format: "| memory hit | %d | %.2f µs | %.2f µs | | |", lookups, percentile(samples, 0.5), percentile(samples, 0.99)))
}

// Disk hits, per compression setting, and the same entry files read raw, interleaved: each round times one pass
// of every case over all files, so a noisy neighbour or the kernel's writeback hits all cases alike. Entries are
// written and synced first (this measures reads, not writeback). Throughput is the median of the rounds' passes.
let rounds = max(3, lookups / files.count / 10)
let caches = [DWCacheCompression.none, .auto].map { compression -> DWWebImageCache in
    let cache = DWWebImageCache(rootDirectory: root, cacheSpace: "disk-\(compression.rawValue)", memoryCountLimit: 0)
    cache.cachePolicy = [.disk]
    cache.configuration.compression = compression
    for f in files { try! cache.store(f.data, forKey: f.name, policy: [.disk]) }
    return cache
}
sync()
let rawPaths = files.map { caches[0].fileURL(forKey: $0.name).path }
var buffer = [UInt8](repeating: 0, count: 1 << 20)
var hitSamples: [[Double]] = [[], []]
var passSeconds: [[Double]] = [[], [], []]  // .none, .auto, raw
for _ in 0..<rounds {
    for (i, cache) in caches.enumerated() {
        let start = now()
        for f in files {
            let t = now()
            precondition(cache.objCache(forKey: f.name)?.count == f.data.count)
            hitSamples[i].append(Double(now() - t) / 1000)
        }
        passSeconds[i].append(Double(now() - start) / 1e9)
    }
    let start = now()
    for path in rawPaths {
        let fd = open(path, O_RDONLY)
        while read(fd, &buffer, buffer.count) > 0 {}
        close(fd)
    }
    passSeconds[2].append(Double(now() - start) / 1e9)
}
let entryBytes = rawPaths.reduce(0) { total, path in
    total + Int((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)??.intValue ?? 0)
}
let rawMBps = Double(entryBytes) / percentile(passSeconds[2], 0.5) / 1e6
for (i, name) in ["none", "auto"].enumerated() {
    let mbps = Double(totalBytes) / percentile(passSeconds[i], 0.5) / 1e6
    print(String(format: "| disk hit (%@) | %d | %.1f µs | %.1f µs | %.0f MB/s | **%.0f %%** of raw |", name,
                 hitSamples[i].count, percentile(hitSamples[i], 0.5), percentile(hitSamples[i], 0.99), mbps,
                 100 * mbps / rawMBps))
}
print(String(format: "| raw read(2) of the .none entry files | %d | | | %.0f MB/s | |", rounds * rawPaths.count, rawMBps))
