// Only the version macro: vips/version.h needs no GLib and nothing here links libvips.
#include <vips/version.h>
#include "CVipsVersion.h"

const char *dw_vips_header_version(void) { return VIPS_VERSION; }
