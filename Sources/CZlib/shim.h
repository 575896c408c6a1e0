#ifndef DW_CZLIB_SHIM_H
#define DW_CZLIB_SHIM_H
#include <zlib.h>
#endif
