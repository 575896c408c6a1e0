#ifndef DW_CGIF_SHIM_H
#define DW_CGIF_SHIM_H
#include <gif_lib.h>
#endif
