// bench/fetch/contract.swift: what the parts SPEC.md prescribes for every download cost on this machine, each alone,
// in their barest Foundation form (built and run by bench/fetch/contract).
//
// SPEC.md's shape, per download: an `Operation` subclass, a downloader object holding a callback array, an entry in
// the in-flight dictionary that coalesces by URL (behind a lock), the Start and Finish notifications posted with a
// userInfo dictionary on the callback queue, the completion delivered on that queue (a hand-off from libcurl's one
// event-loop thread), the request handed to that thread, and the body kept as `Data` (DWImage.data). Each is timed
// here in a loop of its own, with no I/O and nothing else of the library; CPU time (user + system, every thread) per
// iteration. The sum is a floor under what any implementation of that contract spends per image, beyond libcurl.
import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A mutex, as the library's DWLock (pthread_mutex_t).
final class Lock<Value>: @unchecked Sendable {
    // @unchecked: `value` is read and written only between pthread_mutex_lock and unlock.
    private var mutex = pthread_mutex_t()
    private var value: Value
    init(_ value: Value) {
        self.value = value
        pthread_mutex_init(&mutex, nil)
    }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body(&value)
    }
}

/// An asynchronous Operation finished from outside, as DWWebImageOperation.
final class SlotOperation: Operation, @unchecked Sendable {
    // @unchecked: Operation is not Sendable; the own state is behind `state`.
    private let state = Lock((executing: false, finished: false))
    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { state.withLock { $0.executing } }
    override var isFinished: Bool { state.withLock { $0.finished } }
    override func start() {
        state.withLock { $0.executing = true }
        if isCancelled { finish() }
    }
    func finish() { state.withLock { $0 = (false, true) } }
}

/// A downloader with its callback array.
final class Downloader: Sendable {
    let url: String
    let waiters = Lock<[@Sendable (Result<Data, any Error>) -> Void]>([])
    init(url: String) { self.url = url }
}

struct Metrics: Sendable { var url: String; var bytes: Int64; var status: Int; var elapsed: Double }

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// CPU nanoseconds per iteration of `body`, the median of `rounds` rounds of `count` iterations.
func measure(_ count: Int, rounds: Int = 5, _ body: (Int) -> Void) -> Double {
    var results: [Double] = []
    for _ in 0..<rounds {
        let start = cpuSeconds()
        for i in 0..<count { body(i) }
        results.append((cpuSeconds() - start) / Double(count) * 1e9)
    }
    return results.sorted()[rounds / 2]
}

let count = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 20_000
let urls = (0..<count).map { "http://127.0.0.1:8080/corpus/small/image-\(100_000 + $0).jpg" }
let body = [UInt8](repeating: 0x5A, count: 26_600)  // bench/corpus/small's mean image size
var rows: [(String, Double)] = []

rows.append(("Operation subclass: made, started, finished, freed", measure(count) { _ in
    let operation = SlotOperation()
    operation.start()
    operation.finish()
}))

let inflight = Lock<[String: Downloader]>([:])
rows.append(("downloader + callback array; in-flight dictionary by URL: lookup, insert, remove (locked)", measure(count) { i in
    let url = urls[i]
    let found = inflight.withLock { $0[url] }
    precondition(found == nil)
    let downloader = Downloader(url: url)
    downloader.waiters.withLock { $0.append({ _ in }) }
    inflight.withLock { $0[url] = downloader }
    let waiters = downloader.waiters.withLock { $0 }
    inflight.withLock { _ = $0.removeValue(forKey: url) }
    for waiter in waiters { waiter(.success(Data())) }
}))

let center = NotificationCenter()
let start = Notification.Name("DWWebImageDownloadStartNotification")
let finish = Notification.Name("DWWebImageDownloadFinishNotification")
let anchor = Downloader(url: "x")
rows.append(("Start and Finish notifications, userInfo {url} and {url, image, metrics}, no observer", measure(count) { i in
    center.post(name: start, object: anchor, userInfo: ["url": urls[i]])
    let info: [AnyHashable: Any] = [
        "url": urls[i], "image": Data(), "metrics": Metrics(url: urls[i], bytes: 26_600, status: 200, elapsed: 0.001),
    ]
    center.post(name: finish, object: anchor, userInfo: info)
}))

rows.append(("the body into Data, capacity reserved (26.6 KB)", measure(count) { _ in
    var data = Data()
    data.reserveCapacity(body.count)
    body.withUnsafeBytes { data.append(contentsOf: $0) }
    precondition(data.count == body.count)
}))

/// Three hand-offs an image between threads (the request to the event-loop thread, the Start notification and the
/// answer to the callback queue), each a block on a serial queue that another thread drains; the producer waits
/// for the last one every 6 images, as 6 transfers at a time leave it nothing else to do.
let callbacks = DispatchQueue(label: "callbacks")
let engine = DispatchQueue(label: "engine")
rows.append(("3 hand-offs between threads (blocks on serial queues, 6 in flight)", measure(count) { i in
    let done = DispatchSemaphore(value: 0)
    engine.async {
        callbacks.async {}
        callbacks.async { if i % 6 == 5 { done.signal() } }
    }
    if i % 6 == 5 { done.wait() }
}))

let total = rows.reduce(0) { $0 + $1.1 }
print("| what (per image) | CPU µs |")
print("|---|---:|")
for (name, ns) in rows { print("| \(name) | \(String(format: "%.2f", ns / 1000)) |") }
print("| **sum** | **\(String(format: "%.2f", total / 1000))** |")
