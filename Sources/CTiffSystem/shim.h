// libtiff's header, for the CTiff C target only (Swift code imports CTiff, whose header keeps libtiff opaque).
#include <tiffio.h>
