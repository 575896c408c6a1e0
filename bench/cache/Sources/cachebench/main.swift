// cachebench DIR: memory-hit and disk-hit latency of objCache(forKey:) (median, p99 over many lookups) and disk-hit
// throughput against reading the same payloads raw with read(2), for compression .none and .auto.
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

// Disk hits, per compression setting; then the same payloads read raw.
for compression in [DWCacheCompression.none, .auto] {
    let cache = DWWebImageCache(rootDirectory: root, cacheSpace: "disk-\(compression.rawValue)", memoryCountLimit: 0)
    cache.cachePolicy = [.disk]
    cache.compression = compression
    for f in files { try cache.store(f.data, forKey: f.name, policy: [.disk]) }
    var samples: [Double] = []
    let rounds = max(1, lookups / files.count / 10)
    let start = now()
    for _ in 0..<rounds {
        for f in files {
            let t = now()
            precondition(cache.objCache(forKey: f.name)?.count == f.data.count)
            samples.append(Double(now() - t) / 1000)
        }
    }
    let seconds = Double(now() - start) / 1e9
    let mbps = Double(totalBytes * rounds) / seconds / 1e6
    print(String(format: "| disk hit (%@) | %d | %.1f µs | %.1f µs | %.0f MB/s | |", compression.rawValue,
                 samples.count, percentile(samples, 0.5), percentile(samples, 0.99), mbps))
}

// Raw reads of the same bytes (the files of the .none space, read whole with open/read/close).
do {
    let cache = DWWebImageCache(rootDirectory: root, cacheSpace: "disk-none")
    let paths = files.map { cache.fileURL(forKey: $0.name).path }
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    let rounds = max(1, lookups / files.count / 10)
    let start = now()
    var total = 0
    for _ in 0..<rounds {
        for path in paths {
            let fd = open(path, O_RDONLY)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n <= 0 { break }
                total += n
            }
            close(fd)
        }
    }
    let seconds = Double(now() - start) / 1e9
    print(String(format: "| raw read(2) of the same files | %d | | | %.0f MB/s | |", rounds * paths.count, Double(total) / seconds / 1e6))
}
