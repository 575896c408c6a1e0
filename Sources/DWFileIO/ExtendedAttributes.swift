// ExtendedAttributes: fgetxattr/fsetxattr/fremovexattr, which Swift does not import from glibc's <sys/xattr.h>.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

private typealias GetAttribute = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?, Int) -> Int
private typealias SetAttribute =
    @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeRawPointer?, Int, Int32) -> Int32
private typealias RemoveAttribute = @convention(c) (Int32, UnsafePointer<CChar>?) -> Int32

/// The C library's functions, looked up once (nil where it has none: every call then fails with `ENOTSUP`).
private let getAttribute: GetAttribute? = dlsym(nil, "fgetxattr").map { unsafeBitCast($0, to: GetAttribute.self) }
private let setAttribute: SetAttribute? = dlsym(nil, "fsetxattr").map { unsafeBitCast($0, to: SetAttribute.self) }
private let removeAttribute: RemoveAttribute? = dlsym(nil, "fremovexattr").map {
    unsafeBitCast($0, to: RemoveAttribute.self)
}

/// `fgetxattr(2)`: the value of attribute `name` of `fd` into `buffer` (nil with `size` 0 asks for its size); its
/// length, or -1 with `errno` set (`ENODATA`: none; `ERANGE`: `buffer` too small; `ENOTSUP`: none kept here).
/// Any thread.
public func fileAttribute(_ fd: Int32, _ name: String, into buffer: UnsafeMutableRawBufferPointer?) -> Int {
    guard let getAttribute else {
        errno = ENOTSUP
        return -1
    }
    return getAttribute(fd, name, buffer?.baseAddress, buffer?.count ?? 0)
}

/// `fsetxattr(2)` with no flags: sets attribute `name` of `fd` to `value`; 0 or the errno. Any thread.
public func setFileAttribute(_ fd: Int32, _ name: String, to value: UnsafeRawBufferPointer) -> Int32 {
    guard let setAttribute else { return ENOTSUP }
    return setAttribute(fd, name, value.baseAddress, value.count, 0) == 0 ? 0 : errno
}

/// `fremovexattr(2)`: removes attribute `name` of `fd`; 0 or the errno. Any thread.
public func removeFileAttribute(_ fd: Int32, _ name: String) -> Int32 {
    guard let removeAttribute else { return ENOTSUP }
    return removeAttribute(fd, name) == 0 ? 0 : errno
}
