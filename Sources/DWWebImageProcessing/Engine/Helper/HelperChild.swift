// HelperChild: one helper (DWHelperProcess) as a child process — spawned on a socketpair with a scrubbed
// environment, its CPU clock readable, then reaped. The exchange with it is HelperChild+Exchange.swift.
internal import CVips
import DWWebImage
import Foundation

/// One running helper. Not shared: made, used and reaped by one call on one thread.
struct HelperChild {
    /// How the helper exited.
    struct Status: CustomStringConvertible {
        var exitCode: Int32?
        var signalled: Int32?
        var description: String {
            if let signalled { return "was killed by signal \(signalled)" }
            return exitCode.map { "exited with \($0)" } ?? "was reaped elsewhere"
        }
    }

    /// What the helper was started for.
    let job: HelperJob
    /// The helper's process id.
    let pid: pid_t
    /// Our end of the socketpair (the helper's standard input and output are the other end).
    let socket: Int32
    private var reaped = false

    /// Starts `path` as `job`'s helper with `arguments` (after argv[0] and `job`'s argument): standard input and
    /// output on a socketpair, standard error on /dev/null, `file` (when given) as descriptor 3, every other
    /// descriptor closed, signal mask and dispositions reset; at SCHED_IDLE from its first instruction when `idle`.
    init(_ job: HelperJob, _ path: String, arguments: [String], file: Int32? = nil, idle: Bool = false)
        throws(DWWebImageError)
    {
        var fds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0 else {
            throw job.unavailable("socketpair: \(String(cString: strerror(errno)))")
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
        let argv: [UnsafeMutablePointer<CChar>?] = ([path, job.argument] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = Self.environment().map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        close(fds[1])
        guard status == 0 else {
            close(fds[0])
            throw .failed("cannot start the \(job.name) \(path)", reason: String(cString: strerror(status)))
        }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        (self.job, self.pid, socket) = (job, pid, fds[0])
    }

    /// Every helper's environment: what libvips, fontconfig, the locale and the sanitizers read, nothing else (no
    /// signing keys or cloud credentials where librsvg runs).
    static func environment() -> [String] {
        let names: Set<String> = ["HOME", "PATH", "LANG", "TMPDIR", "VIPSHOME"]
        let prefixes = ["LC_", "FONTCONFIG_", "XDG_", "VIPS_", "ASAN_", "LSAN_", "UBSAN_", "MALLOC_"]
        return ProcessInfo.processInfo.environment.filter { name, _ in
            names.contains(name) || prefixes.contains { name.hasPrefix($0) }
        }.map { "\($0)=\($1)" }
    }

    /// The helper's CPU time (every thread, user and system) in seconds; 0 when it cannot be read.
    func cpuSeconds() -> Double {
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
