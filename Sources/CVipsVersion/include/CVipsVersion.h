// CVipsVersion: the libvips version its headers declare, read without linking libvips (a macro of vips/version.h).
#ifndef CVIPSVERSION_H
#define CVIPSVERSION_H

/// "MAJOR.MINOR.MICRO" of the libvips headers dwfetch-pixels was built against.
const char *dw_vips_header_version(void);

#endif
