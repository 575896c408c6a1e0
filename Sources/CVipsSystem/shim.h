// libvips' headers, for the CVips C target only (Swift code imports CVips, whose header keeps libvips opaque).
#include <vips/vips.h>
