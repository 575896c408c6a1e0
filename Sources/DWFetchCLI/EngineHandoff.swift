// EngineHandoff: a run that needs an engine this executable lacks continues in the sibling executable that has it,
// through execv (same process id, same arguments, same signals and file descriptors).
import DWFileIO
import Foundation

/// The executables beside this one (`/proc/self/exe`'s directory).
package enum EngineHandoff {
    /// The pixel engines: libvips, libchafa.
    package static let pixels = "dwfetch-pixels"
    /// `--demo`: the pixel engines and the loopback sample server (built beside dwfetch, never shipped).
    package static let demo = "dwfetch-demo"
    /// The image proxy on Hummingbird.
    package static let serve = "dwfetch-serve"

    /// Replaces this process with the sibling executable `name`, passing the same arguments; returns only if
    /// that fails, after saying why on stderr. Runs on the main thread before any request is made.
    package static func exec(_ name: String, arguments: [String] = CommandLine.arguments) -> Int32 {
        let path = directory() + "/" + name
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        StandardStream.error.write(
            "dwfetch: cannot run \(path): \(reason) (build it with `swift build --product \(name)`)\n")
        return 1
    }

    /// The directory of the running executable (symbolic links resolved).
    static func directory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        guard count > 0 else { return (CommandLine.arguments[0] as NSString).deletingLastPathComponent }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (path as NSString).deletingLastPathComponent
    }
}
