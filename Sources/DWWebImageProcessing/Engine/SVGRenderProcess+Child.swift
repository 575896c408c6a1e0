// HelperChild: the SVG helper as a child process — spawned on a socketpair, fed and read in one poll loop on the
// calling thread while its CPU clock is watched, then reaped.
internal import CVips
import DWWebImage
import Foundation

/// One running helper. Not shared: made, used and reaped by one call on one thread.
struct HelperChild {
    /// How the exchange ended.
    enum Outcome {
        case pixels(width: Int, height: Int, bands: Int, UnsafeMutableRawBufferPointer)
        case failure(code: Int, message: String)
        case overBudget(Double)
        case overWallLimit
        case broken(String)
    }

    /// How the helper exited.
    struct Status: CustomStringConvertible {
        var exitCode: Int32?
        var signalled: Int32?
        var description: String {
            if let signalled { return "was killed by signal \(signalled)" }
            return exitCode.map { "exited with \($0)" } ?? "was reaped elsewhere"
        }
    }

    let pid: pid_t
    /// Our end of the socketpair (the helper's standard input and output are the other end).
    let socket: Int32
    private var reaped = false

    /// Starts `path` with `arguments` (after argv[0]): standard input and output on a socketpair, standard error
    /// on /dev/null, `file` (when given) as descriptor 3, every other descriptor closed, signal mask and
    /// dispositions reset; at SCHED_IDLE from its first instruction when `idle`.
    init(_ path: String, arguments: [String], file: Int32? = nil, idle: Bool = false) throws(DWWebImageError) {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw .cannotRenderSVG("socketpair: \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        if let file { posix_spawn_file_actions_adddup2(&actions, file, 3) }
        _ = cvips_spawn_closefrom(&actions, file == nil ? 3 : 4)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        if idle { _ = cvips_spawn_idle(&attributes) }
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = Self.environment().map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        close(fds[1])
        guard status == 0 else {
            close(fds[0])
            throw DWWebImageError(
                .notAnImage, "cannot start the SVG helper \(path): \(String(cString: strerror(status)))")
        }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        (self.pid, socket) = (pid, fds[0])
    }

    /// The helper's environment: what libvips, fontconfig, the locale and the sanitizers read, nothing else (no
    /// signing keys or cloud credentials where librsvg runs).
    static func environment() -> [String] {
        let names: Set<String> = ["HOME", "PATH", "LANG", "TMPDIR", "VIPSHOME"]
        let prefixes = ["LC_", "FONTCONFIG_", "XDG_", "VIPS_", "ASAN_", "LSAN_", "UBSAN_", "MALLOC_"]
        return ProcessInfo.processInfo.environment.filter { name, _ in
            names.contains(name) || prefixes.contains { name.hasPrefix($0) }
        }.map { "\($0)=\($1)" }
    }

    /// Sends `input` (then shuts our writing side), reads the record back, and watches the helper's CPU clock:
    /// past `budget` seconds, or `wallLimit` seconds of wall time, it is killed. `maxPixelBytes`: the largest pixel
    /// record accepted.
    mutating func exchange(_ input: Data, budget: Double, wallLimit: Double, maxPixelBytes: Int) -> Outcome {
        let started = ContinuousClock.now
        var written = 0
        var head: [UInt8] = []
        var pixels: (buffer: UnsafeMutableRawBufferPointer, filled: Int, width: Int, height: Int, bands: Int)?
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var poller = pollfd(
                fd: socket, events: Int16(POLLIN) | (written < input.count ? Int16(POLLOUT) : 0), revents: 0)
            if poll(&poller, 1, 20) > 0 {
                if poller.revents & Int16(POLLOUT) != 0, written < input.count {
                    let n = input.withUnsafeBytes {
                        send(
                            socket, $0.baseAddress! + written, min(input.count - written, 1 << 20), Int32(MSG_NOSIGNAL))
                    }
                    if n > 0 { written += n } else if errno != EAGAIN && errno != EINTR { written = input.count }
                    if written == input.count { shutdown(socket, Int32(SHUT_WR)) }
                }
                if poller.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                    var n: Int
                    if let current = pixels {
                        n = recv(
                            socket, current.buffer.baseAddress! + current.filled, current.buffer.count - current.filled,
                            0)
                        if n > 0 { pixels!.filled += n }
                        if n > 0, current.filled + n == current.buffer.count {  // all there: the end must follow
                            n = recv(socket, &chunk, 1, 0)
                            if n == 0 || (n < 0 && errno == EAGAIN) {
                                return .pixels(
                                    width: current.width, height: current.height, bands: current.bands, current.buffer)
                            }
                        }
                    } else {
                        n = recv(socket, &chunk, chunk.count, 0)
                        if n > 0, head.count < 1 << 16 { head += chunk[..<n] }
                        if head.count >= SVGRenderProcess.Record.headerSize,
                            head.starts(with: SVGRenderProcess.Record.pixelsMagic)
                        {
                            switch Self.pixelBuffer(head, maxPixelBytes: maxPixelBytes) {
                            case .success(let started): pixels = started
                            case .failure(let reason):
                                kill(pid, SIGKILL)
                                return .broken(reason.reason)
                            }
                            head = []
                            if pixels!.filled == pixels!.buffer.count, pixels!.buffer.count > 0 {
                                return .pixels(
                                    width: pixels!.width, height: pixels!.height, bands: pixels!.bands, pixels!.buffer)
                            }
                        }
                    }
                    if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) {
                        pixels?.buffer.deallocate()
                        return Self.ended(head, pixelsStarted: pixels != nil)
                    }
                }
            }
            let cpu = cpuSeconds()
            if cpu > budget {
                kill(pid, SIGKILL)
                pixels?.buffer.deallocate()
                return .overBudget(cpu)
            }
            if ContinuousClock.now - started > .seconds(wallLimit) {
                kill(pid, SIGKILL)
                pixels?.buffer.deallocate()
                return .overWallLimit
            }
        }
    }

    /// The pixel buffer a pixel record's header announces (and the bytes after the header already read into it).
    private static func pixelBuffer(_ head: [UInt8], maxPixelBytes: Int) -> Result<
        (buffer: UnsafeMutableRawBufferPointer, filled: Int, width: Int, height: Int, bands: Int), Failure
    > {
        let record = SVGRenderProcess.Record.self
        let (width, height, bands) = (record.int(head, at: 8), record.int(head, at: 16), record.int(head, at: 24))
        let size = width.multipliedReportingOverflow(by: height).partialValue.multipliedReportingOverflow(by: bands)
        guard width > 0, height > 0, (3...4).contains(bands), width <= 10_000_000, height <= 10_000_000, !size.overflow,
            size.partialValue <= maxPixelBytes
        else {
            return .failure(Failure(reason: "a pixel record of \(width)×\(height)×\(bands) is not acceptable"))
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size.partialValue, alignment: 16)
        let extra = min(head.count - record.headerSize, buffer.count)
        head[record.headerSize..<record.headerSize + extra].withUnsafeBytes { buffer.copyMemory(from: $0) }
        return .success((buffer, extra, width, height, bands))
    }

    struct Failure: Error { let reason: String }

    /// The outcome of an exchange whose socket ended: a failure record, or a helper that stopped mid-way.
    private static func ended(_ head: [UInt8], pixelsStarted: Bool) -> Outcome {
        let record = SVGRenderProcess.Record.self
        if !pixelsStarted, head.count >= record.headerSize, head.starts(with: record.failureMagic) {
            let code = record.int(head, at: 8) == DWWebImageError.Code.tooLarge.rawValue ? 10005 : 10000
            return .failure(code: code, message: String(decoding: head[record.headerSize...], as: UTF8.self))
        }
        return .broken(pixelsStarted ? "the pixels stopped short" : "no answer")
    }

    /// The helper's CPU time (every thread, user and system) in seconds; 0 when it cannot be read.
    private func cpuSeconds() -> Double {
        var clock = clockid_t()
        guard clock_getcpuclockid(pid, &clock) == 0 else { return 0 }
        var time = timespec()
        guard clock_gettime(clock, &time) == 0 else { return 0 }
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Waits for the helper to exit — at most a second after its answer, then it is killed — and closes the socket.
    mutating func reap() -> Status {
        defer { close(socket) }
        guard !reaped else { return Status() }
        reaped = true
        var status: Int32 = 0
        var result: pid_t = 0
        for _ in 0..<200 {
            result = waitpid(pid, &status, WNOHANG)
            if result != 0 && !(result < 0 && errno == EINTR) { break }
            usleep(5_000)
        }
        if result == 0 {
            kill(pid, SIGKILL)
            repeat { result = waitpid(pid, &status, 0) } while result < 0 && errno == EINTR
        }
        guard result == pid else { return Status() }
        let signal = status & 0x7F
        return signal == 0 ? Status(exitCode: (status >> 8) & 0xFF) : Status(signalled: signal)
    }
}
