// openat2(2) with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, which glibc has no wrapper for (Swift cannot call the
// variadic syscall(2)). No policy lives in C: the server decides what to open and what to do on failure.
#ifndef CO_OPEN_BENEATH_H
#define CO_OPEN_BENEATH_H

/// Opens `path` (relative, resolved under `dirfd`) with `flags`; no component may be a symlink or lead outside
/// `dirfd` (`..`, an absolute path, a magic link). Returns the descriptor, or -1 with errno set: ENOSYS when the
/// kernel (or a seccomp filter, often as EPERM) lacks openat2, ELOOP/EXDEV for a symlink or an escape.
int dw_openat2_beneath(int dirfd, const char *path, int flags);

#endif
