// pixbench thumb IN OUT SIZE [--threads T] [--repeat N]
//   fit IN into SIZE×SIZE (DWResize, output in IN's format, quality 80) and write OUT; with --repeat, do it N times
//   in this process and print the median milliseconds per image.
// pixbench dir INDIR OUTDIR SIZE [--jobs J] [--threads T]
//   the same for every file of INDIR on J threads (default: the cores); prints images, seconds, images/s.
import DWWebImage
import DWWebImageProcessing
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("pixbench: \(message)\n".utf8))
    exit(2)
}

func option(_ name: String, _ args: [String]) -> Int? {
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    return Int(args[i + 1])
}

func thumbnail(_ input: String, _ output: String, size: Int) throws -> Int {
    let image = try DWImage(contentsOfFile: input)
    let out = try DWResize(width: size, height: size).process(image)
    guard FileManager.default.createFile(atPath: output, contents: out.data) else { fail("cannot write \(output)") }
    return out.data.count
}

let args = Array(CommandLine.arguments.dropFirst())
guard args.count >= 4 else { fail("usage: pixbench thumb IN OUT SIZE [--threads T] [--repeat N] | dir IN OUT SIZE [--jobs J]") }
DWImageProcessing.threadsPerTransform = option("--threads", args) ?? 1
guard let size = Int(args[3]), size > 0 else { fail("bad size \(args[3])") }

switch args[0] {
case "thumb":
    let repeats = option("--repeat", args) ?? 1
    var times: [Double] = []
    for _ in 0..<repeats {
        let start = DispatchTime.now().uptimeNanoseconds
        do { _ = try thumbnail(args[1], args[2], size: size) } catch { fail("\(error)") }
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    if repeats > 1 { print(String(format: "median_ms %.2f", times.sorted()[times.count / 2])) }
case "dir":
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: args[1])) ?? []).sorted()
    try? FileManager.default.createDirectory(atPath: args[2], withIntermediateDirectories: true)
    let jobs = option("--jobs", args) ?? ProcessInfo.processInfo.activeProcessorCount
    let start = DispatchTime.now().uptimeNanoseconds
    let failures = DWLockedCounter()
    DispatchQueue.concurrentPerform(iterations: jobs) { worker in
        for i in stride(from: worker, to: names.count, by: jobs) {
            do {
                _ = try thumbnail(args[1] + "/" + names[i], args[2] + "/" + names[i], size: size)
            } catch {
                failures.increment()
            }
        }
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    print(String(format: "images %d failed %d seconds %.3f images_per_s %.1f", names.count, failures.value, seconds,
                 Double(names.count) / seconds))
default:
    fail("unknown mode \(args[0])")
}

/// A counter shared by the worker threads (one lock).
final class DWLockedCounter: @unchecked Sendable {
    // @unchecked: `count` is only touched under `lock`.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
