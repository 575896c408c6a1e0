// CChafa: typed wrappers over libchafa (canvas config, symbol map, pixel and canvas modes, drawing, printing).
// No policy lives here: every choice (sizes, modes, symbols) is made by the Swift caller. GLib types stay inside
// the .c file, so Swift sees only these opaque handles and plain C integers.
#ifndef CCHAFA_H
#define CCHAFA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A ChafaCanvasConfig.
typedef struct dw_chafa_config dw_chafa_config;
/// A ChafaCanvas.
typedef struct dw_chafa_canvas dw_chafa_canvas;

/// ChafaPixelMode.
typedef enum {
    DW_CHAFA_PIXEL_MODE_SYMBOLS = 0,
    DW_CHAFA_PIXEL_MODE_SIXELS = 1,
    DW_CHAFA_PIXEL_MODE_KITTY = 2,
    DW_CHAFA_PIXEL_MODE_ITERM2 = 3,
} dw_chafa_pixel_mode;

/// The ChafaCanvasMode values we use.
typedef enum {
    DW_CHAFA_CANVAS_MODE_TRUECOLOR = 0,
    DW_CHAFA_CANVAS_MODE_INDEXED_256 = 1,
    DW_CHAFA_CANVAS_MODE_INDEXED_16 = 2,
    /// Default foreground and background only: no colour sequences at all.
    DW_CHAFA_CANVAS_MODE_FGBG = 3,
} dw_chafa_canvas_mode;

/// ChafaSymbolTags bits (same values as libchafa's).
enum {
    DW_CHAFA_SYMBOL_SPACE = 1 << 0,
    DW_CHAFA_SYMBOL_SOLID = 1 << 1,
    DW_CHAFA_SYMBOL_STIPPLE = 1 << 2,
    DW_CHAFA_SYMBOL_BLOCK = 1 << 3,
    DW_CHAFA_SYMBOL_BORDER = 1 << 4,
    DW_CHAFA_SYMBOL_QUAD = 1 << 7,
    DW_CHAFA_SYMBOL_HALF = (1 << 8) | (1 << 9),
    DW_CHAFA_SYMBOL_BRAILLE = 1 << 11,
    DW_CHAFA_SYMBOL_SEXTANT = 1 << 22,
};

/// ChafaOptimizations bits.
enum {
    DW_CHAFA_OPTIMIZE_REUSE_ATTRIBUTES = 1 << 0,
    DW_CHAFA_OPTIMIZE_SKIP_CELLS = 1 << 1,
    DW_CHAFA_OPTIMIZE_REPEAT_CELLS = 1 << 2,
};

/// chafa_canvas_config_new. Free with dw_chafa_config_free.
dw_chafa_config *dw_chafa_config_new(void);
void dw_chafa_config_free(dw_chafa_config *config);
/// Canvas size in character cells.
void dw_chafa_config_set_geometry(dw_chafa_config *config, int columns, int rows);
/// Size of one cell in pixels (used by the sixel, kitty and iTerm2 modes to size the picture).
void dw_chafa_config_set_cell_geometry(dw_chafa_config *config, int cell_width, int cell_height);
void dw_chafa_config_set_pixel_mode(dw_chafa_config *config, dw_chafa_pixel_mode mode);
void dw_chafa_config_set_canvas_mode(dw_chafa_config *config, dw_chafa_canvas_mode mode);
/// A symbol map made of the DW_CHAFA_SYMBOL_* tags in `tags` (symbols mode).
void dw_chafa_config_set_symbol_tags(dw_chafa_config *config, uint32_t tags);
/// DW_CHAFA_OPTIMIZE_* bits.
void dw_chafa_config_set_optimizations(dw_chafa_config *config, uint32_t optimizations);
/// 0.0 (no dithering) … 1.0; ordered dithering when > 0.
void dw_chafa_config_set_dither(dw_chafa_config *config, float intensity);

/// chafa_canvas_new with a copy of `config`. Free with dw_chafa_canvas_free.
dw_chafa_canvas *dw_chafa_canvas_new(const dw_chafa_config *config);
void dw_chafa_canvas_free(dw_chafa_canvas *canvas);
/// Draws RGBA8 pixels, straight (unassociated) alpha, `rowstride` bytes per row, scaled to the canvas.
void dw_chafa_canvas_draw_rgba8(dw_chafa_canvas *canvas, const uint8_t *pixels, int width, int height, int rowstride);
/// The canvas as terminal output (chafa_canvas_print with the fallback terminal info, which knows every
/// sequence), rows separated by '\n', no trailing newline. Returns malloc'd bytes (free with dw_chafa_free) and
/// their count in *length; NULL if libchafa returned nothing.
char *dw_chafa_canvas_print(dw_chafa_canvas *canvas, size_t *length);
void dw_chafa_free(void *bytes);

#ifdef __cplusplus
}
#endif

#endif
