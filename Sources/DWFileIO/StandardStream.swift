// StandardStream: text written to standard output or standard error with write(2). Foundation's
// FileHandle.write traps when the reader has gone (EPIPE, with SIGPIPE ignored, as dwfetch ignores it for its
// sockets); here a closed stream is a return value, and the caller decides.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Standard output or standard error, written with `write(2)` from any thread (each call is one loop of writes;
/// concurrent callers' bytes may interleave, as with any file descriptor).
package enum StandardStream: Int32 {
    case output = 1
    case error = 2

    /// Writes all of `text`, again after `EINTR`; false when the stream refused it (`EPIPE`: its reader has gone;
    /// or any other error), with what was not written dropped.
    @discardableResult
    package func write(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var written = 0
            while written < bytes.count {
                let n = systemWrite(rawValue, bytes.baseAddress! + written, bytes.count - written)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                written += n
            }
            return true
        }
    }

    /// Writes `text` to standard output; when its reader has gone, ends the process as SIGPIPE ends `cat` or
    /// `grep` under `| head` (status 128 + 13), the signal's default restored first.
    package static func writeOutputOrEnd(_ text: String) {
        guard !StandardStream.output.write(text) else { return }
        signal(SIGPIPE, SIG_DFL)
        raise(SIGPIPE)
        _exit(128 + SIGPIPE)  // not reached: the signal ends the process
    }
}

/// write(2) under a name the enum's own `write` does not shadow.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int { write(fd, buffer, count) }
