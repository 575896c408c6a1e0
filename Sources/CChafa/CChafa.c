// Typed wrappers over libchafa; see include/CChafa.h. No policy here.
#include "CChafa.h"

#include <chafa.h>
#include <stdlib.h>
#include <string.h>

static ChafaCanvasConfig *cfg(dw_chafa_config *c) { return (ChafaCanvasConfig *)c; }

dw_chafa_config *dw_chafa_config_new(void) { return (dw_chafa_config *)chafa_canvas_config_new(); }

void dw_chafa_config_free(dw_chafa_config *config) {
    if (config) chafa_canvas_config_unref(cfg(config));
}

void dw_chafa_config_set_geometry(dw_chafa_config *config, int columns, int rows) {
    chafa_canvas_config_set_geometry(cfg(config), columns, rows);
}

void dw_chafa_config_set_cell_geometry(dw_chafa_config *config, int cell_width, int cell_height) {
    chafa_canvas_config_set_cell_geometry(cfg(config), cell_width, cell_height);
}

void dw_chafa_config_set_pixel_mode(dw_chafa_config *config, dw_chafa_pixel_mode mode) {
    static const ChafaPixelMode modes[] = {
        CHAFA_PIXEL_MODE_SYMBOLS, CHAFA_PIXEL_MODE_SIXELS, CHAFA_PIXEL_MODE_KITTY, CHAFA_PIXEL_MODE_ITERM2,
    };
    if ((unsigned)mode < sizeof modes / sizeof modes[0]) chafa_canvas_config_set_pixel_mode(cfg(config), modes[mode]);
}

void dw_chafa_config_set_canvas_mode(dw_chafa_config *config, dw_chafa_canvas_mode mode) {
    static const ChafaCanvasMode modes[] = {
        CHAFA_CANVAS_MODE_TRUECOLOR, CHAFA_CANVAS_MODE_INDEXED_256, CHAFA_CANVAS_MODE_INDEXED_16, CHAFA_CANVAS_MODE_FGBG,
    };
    if ((unsigned)mode < sizeof modes / sizeof modes[0]) chafa_canvas_config_set_canvas_mode(cfg(config), modes[mode]);
}

void dw_chafa_config_set_symbol_tags(dw_chafa_config *config, uint32_t tags) {
    ChafaSymbolMap *map = chafa_symbol_map_new();
    chafa_symbol_map_add_by_tags(map, (ChafaSymbolTags)tags);
    chafa_canvas_config_set_symbol_map(cfg(config), map);  // copies the map
    chafa_symbol_map_unref(map);
}

void dw_chafa_config_set_optimizations(dw_chafa_config *config, uint32_t optimizations) {
    chafa_canvas_config_set_optimizations(cfg(config), (ChafaOptimizations)optimizations);
}

void dw_chafa_config_set_dither(dw_chafa_config *config, float intensity) {
    chafa_canvas_config_set_dither_mode(cfg(config), intensity > 0 ? CHAFA_DITHER_MODE_ORDERED : CHAFA_DITHER_MODE_NONE);
    if (intensity > 0) chafa_canvas_config_set_dither_intensity(cfg(config), intensity);
}

dw_chafa_canvas *dw_chafa_canvas_new(const dw_chafa_config *config) {
    return (dw_chafa_canvas *)chafa_canvas_new((const ChafaCanvasConfig *)config);
}

void dw_chafa_canvas_free(dw_chafa_canvas *canvas) {
    if (canvas) chafa_canvas_unref((ChafaCanvas *)canvas);
}

void dw_chafa_canvas_draw_rgba8(dw_chafa_canvas *canvas, const uint8_t *pixels, int width, int height, int rowstride) {
    chafa_canvas_draw_all_pixels((ChafaCanvas *)canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, pixels, width, height, rowstride);
}

char *dw_chafa_canvas_print(dw_chafa_canvas *canvas, size_t *length) {
    ChafaTermInfo *info = chafa_term_db_get_fallback_info(chafa_term_db_get_default());
    GString *text = chafa_canvas_print((ChafaCanvas *)canvas, info);
    chafa_term_info_unref(info);
    if (!text) return NULL;
    char *bytes = malloc(text->len + 1);
    if (bytes) {
        memcpy(bytes, text->str, text->len + 1);
        *length = text->len;
    }
    g_string_free(text, TRUE);
    return bytes;
}

void dw_chafa_free(void *bytes) { free(bytes); }
