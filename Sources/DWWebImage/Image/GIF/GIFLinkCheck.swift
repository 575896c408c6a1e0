import CGif

/// giflib's compile-time version, e.g. "5.2.1" (placeholder until the GIF decoder lands).
let giflibVersion = "\(GIFLIB_MAJOR).\(GIFLIB_MINOR).\(GIFLIB_RELEASE)"
