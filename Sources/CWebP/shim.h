#ifndef DW_CWEBP_SHIM_H
#define DW_CWEBP_SHIM_H
// libwebp's animation decoder (WebPAnimDecoder: the reference compositor of animated WebP) and demuxer.
#include <webp/decode.h>
#include <webp/demux.h>
#endif
