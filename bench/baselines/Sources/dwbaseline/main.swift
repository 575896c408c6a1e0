// dwbaseline: the job `dwfetch -j N -o DIR -i FILE` does, done with an ordinary Swift HTTP client, for bench/run.
//
//   dwbaseline ahc        -j 6 -o DIR -i urls   AsyncHTTPClient; each body streamed chunk by chunk into its file
//   dwbaseline urlsession -j 6 -o DIR -i urls   Foundation URLSession, data(from:) then write(2)
//
// N worker tasks pull the next URL from a shared cursor, so at most N requests are in flight (the same as
// `curl --parallel-max N` or `aria2c -j N`). Each body goes to DIR/<last path component of the URL>.
// Exit 0 when every URL was fetched with a 2xx status and written, 1 otherwise, 2 on usage errors.
import AsyncHTTPClient
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import Synchronization

struct Options {
    var mode = ""
    var jobs = 6
    var output = "."
    var input = ""
}

func usage(_ message: String) -> Never {
    FileHandle.standardError.write(Data("dwbaseline: \(message)\nusage: dwbaseline ahc|urlsession [-j N] -o DIR -i FILE\n".utf8))
    exit(2)
}

func parse(_ args: [String]) -> Options {
    var o = Options()
    var it = args.dropFirst().makeIterator()
    guard let mode = it.next(), mode == "ahc" || mode == "urlsession" else { usage("first argument must be ahc or urlsession") }
    o.mode = mode
    while let a = it.next() {
        guard let v = it.next() else { usage("\(a) needs a value") }
        switch a {
        case "-j": guard let n = Int(v), n > 0 else { usage("bad -j \(v)") }; o.jobs = n
        case "-o": o.output = v
        case "-i": o.input = v
        default: usage("unknown option \(a)")
        }
    }
    if o.input.isEmpty { usage("-i FILE is required") }
    return o
}

/// Hands out indices 0..<count once each, to any number of workers.
final class Cursor: Sendable {
    private let next = Mutex(0)
    private let count: Int
    init(count: Int) { self.count = count }
    func take() -> Int? {
        next.withLock { n in
            guard n < count else { return nil }
            defer { n += 1 }
            return n
        }
    }
}

final class Failures: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ s: String) { list.withLock { $0.append(s) } }
    var all: [String] { list.withLock { $0 } }
}

func destination(_ url: String, in dir: String) -> String {
    let name = url.split(separator: "/").last.map(String.init) ?? "index"
    return dir + "/" + name
}

func createFile(_ path: String) throws -> Int32 {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw WriteError(path: path, errno: errno) }
    return fd
}

/// Plain write(2) until done: no fsync (Foundation's Data.write syncs each file, which no other tool here does).
func writeAll(_ fd: Int32, _ raw: UnsafeRawBufferPointer, _ path: String) throws {
    var off = 0
    while off < raw.count {
        let n = write(fd, raw.baseAddress! + off, raw.count - off)
        if n < 0 {
            if errno == EINTR { continue }
            throw WriteError(path: path, errno: errno)
        }
        off += n
    }
}

struct HTTPStatusError: Error, CustomStringConvertible {
    let status: Int
    var description: String { "HTTP \(status)" }
}

struct WriteError: Error, CustomStringConvertible {
    let path: String
    let errno: Int32
    var description: String { "cannot write \(path): \(String(cString: strerror(errno)))" }
}

/// AsyncHTTPClient: stream the body into the file as it arrives (no whole body in memory).
func fetchAHC(_ client: HTTPClient, _ url: String, to path: String) async throws {
    let request = HTTPClientRequest(url: url)
    let response = try await client.execute(request, timeout: .seconds(120))
    guard (200..<300).contains(Int(response.status.code)) else { throw HTTPStatusError(status: Int(response.status.code)) }
    let fd = try createFile(path)
    defer { close(fd) }
    for try await chunk in response.body {
        try chunk.withUnsafeReadableBytes { try writeAll(fd, $0, path) }
    }
}

/// URLSession: the usual way, the whole body as Data, then written to the file.
func fetchURLSession(_ session: URLSession, _ url: String, to path: String) async throws {
    guard let u = URL(string: url) else { throw URLError(.badURL) }
    let (data, response) = try await session.data(from: u)
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    guard (200..<300).contains(status) else { throw HTTPStatusError(status: status) }
    let fd = try createFile(path)
    defer { close(fd) }
    try data.withUnsafeBytes { try writeAll(fd, $0, path) }
}

let options = parse(CommandLine.arguments)
guard let text = try? String(contentsOfFile: options.input, encoding: .utf8) else { usage("cannot read \(options.input)") }
let urls = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
    .filter { !$0.isEmpty && !$0.hasPrefix("#") }
try? FileManager.default.createDirectory(atPath: options.output, withIntermediateDirectories: true)

let cursor = Cursor(count: urls.count)
let failures = Failures()

switch options.mode {
case "ahc":
    var config = HTTPClient.Configuration()
    config.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = options.jobs
    config.decompression = .disabled
    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: config)
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<options.jobs {
            group.addTask {
                while let i = cursor.take() {
                    do { try await fetchAHC(client, urls[i], to: destination(urls[i], in: options.output)) }
                    catch { failures.add("\(urls[i]): \(error)") }
                }
            }
        }
    }
    try? await client.shutdown()
default:
    let config = URLSessionConfiguration.ephemeral
    config.httpMaximumConnectionsPerHost = options.jobs
    config.urlCache = nil
    config.timeoutIntervalForRequest = 120
    let session = URLSession(configuration: config)
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<options.jobs {
            group.addTask {
                while let i = cursor.take() {
                    do { try await fetchURLSession(session, urls[i], to: destination(urls[i], in: options.output)) }
                    catch { failures.add("\(urls[i]): \(error)") }
                }
            }
        }
    }
    session.finishTasksAndInvalidate()
}

let failed = failures.all
for f in failed.prefix(10) { FileHandle.standardError.write(Data("dwbaseline: \(f)\n".utf8)) }
if failed.count > 10 { FileHandle.standardError.write(Data("dwbaseline: … and \(failed.count - 10) more\n".utf8)) }
exit(failed.isEmpty ? 0 : 1)
