// SVG rendering with librsvg into a cairo image surface (see CLoupeCodecs.h, "SVG").
//
// The document is loaded from memory with librsvg's default flags: its limits on the number of
// elements and references stay on (no RSVG_HANDLE_FLAG_UNLIMITED), and with no base file or URL
// librsvg loads nothing outside the document (no files, no network: it refuses every reference
// but a data: URL without a base). Lengths in physical units resolve at 96 DPI, the CSS pixel
// and imgproxy 4's value (librsvg's own default is 90). The intrinsic size is the document's
// width and height in pixels, else its viewBox's size (documents with neither are refused),
// and a render at any scale maps that size onto the requested pixels, so a vector source is
// drawn at the size a result needs, never drawn large and shrunk.
//
// librsvg is not linked: every call goes through `lib`, its table from codec_libraries.h,
// loaded on first use (lazy_library.h says why); cairo and GLib are its dependencies.
#include "CLoupeCodecs.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_libraries.h"

struct lc_svg {
    const lc_rsvg_functions *lib;
    RsvgHandle *handle;
};

/// Copies a GError's message into `message` and frees it (a NULL error leaves `fallback`).
static void take_error(const lc_rsvg_functions *lib, GError *error, const char *fallback, char *message) {
    snprintf(message, LC_MESSAGE_CAPACITY, "%s", error && error->message ? error->message : fallback);
    if (error) lib->g_error_free(error);
}

/// The document's size in pixels: its width and height where both resolve without a viewport,
/// else its viewBox's size; 0 when it has neither.
static void intrinsic_size(const lc_rsvg_functions *lib, RsvgHandle *handle, double *width, double *height) {
    *width = 0;
    *height = 0;
    if (lib->rsvg_handle_get_intrinsic_size_in_pixels(handle, width, height) && *width > 0 && *height > 0) return;
    gboolean has_width = 0, has_height = 0, has_viewbox = 0;
    RsvgLength w = {0}, h = {0};
    RsvgRectangle viewbox = {0};
    lib->rsvg_handle_get_intrinsic_dimensions(handle, &has_width, &w, &has_height, &h, &has_viewbox, &viewbox);
    if (has_viewbox) {
        *width = viewbox.width;
        *height = viewbox.height;
    }
}

lc_svg *lc_svg_create(const uint8_t *data, size_t size, lc_svg_info *info, char *message) {
    memset(info, 0, sizeof *info);
    const lc_rsvg_functions *lib = lc_rsvg_functions_load(message);
    if (!lib) return NULL;
    GError *error = NULL;
    RsvgHandle *handle = lib->rsvg_handle_new_from_data(data, size, &error);
    if (!handle) {
        take_error(lib, error, "not an SVG document", message);
        return NULL;
    }
    if (error) lib->g_error_free(error);
    lib->rsvg_handle_set_dpi(handle, 96.0);
    double width = 0, height = 0;
    intrinsic_size(lib, handle, &width, &height);
    if (!(isfinite(width) && isfinite(height) && width > 0 && height > 0)) {
        snprintf(message, LC_MESSAGE_CAPACITY, "SVG document without a size (no width and height in absolute units, no viewBox)");
        lib->g_object_unref(handle);
        return NULL;
    }
    lc_svg *self = calloc(1, sizeof *self);
    if (!self) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        lib->g_object_unref(handle);
        return NULL;
    }
    self->lib = lib;
    self->handle = handle;
    info->width = width;
    info->height = height;
    return self;
}

int lc_svg_render(lc_svg *self, uint8_t *out, size_t stride, uint32_t width, uint32_t height, double viewport_width,
                  double viewport_height, char *message) {
    const lc_rsvg_functions *lib = self->lib;
    if (width == 0 || height == 0 || width > INT_MAX / 4 || height > INT_MAX || stride > INT_MAX || stride < (size_t)width * 4
        || stride % 4 != 0) {
        snprintf(message, LC_MESSAGE_CAPACITY, "unusable SVG output size %ux%u", width, height);
        return LC_ERROR;
    }
    // Transparent where the document draws nothing: cairo composites onto what is there.
    memset(out, 0, stride * height);
    cairo_surface_t *surface = lib->cairo_image_surface_create_for_data(out, LC_CAIRO_FORMAT_ARGB32, (int)width, (int)height, (int)stride);
    if (lib->cairo_surface_status(surface) != LC_CAIRO_STATUS_SUCCESS) {
        lib->cairo_surface_destroy(surface);
        snprintf(message, LC_MESSAGE_CAPACITY, "cairo cannot draw into %ux%u pixels", width, height);
        return LC_ERROR;
    }
    cairo_t *cr = lib->cairo_create(surface);
    const RsvgRectangle viewport = {0, 0, viewport_width, viewport_height};
    GError *error = NULL;
    int ok = lib->cairo_status(cr) == LC_CAIRO_STATUS_SUCCESS && lib->rsvg_handle_render_document(self->handle, cr, &viewport, &error);
    lib->cairo_destroy(cr);
    lib->cairo_surface_flush(surface);
    lib->cairo_surface_destroy(surface);
    if (!ok) {
        take_error(lib, error, "librsvg could not render the document", message);
        return LC_ERROR;
    }
    if (error) lib->g_error_free(error);
    // cairo's ARGB32 is one native-endian word a pixel, colours premultiplied by alpha: turned
    // into straight RGBA bytes, as every Bitmap holds.
    for (uint32_t y = 0; y < height; y++) {
        uint8_t *row = out + (size_t)y * stride;
        for (uint32_t x = 0; x < width; x++) {
            uint8_t *p = row + (size_t)x * 4;
            uint32_t v;
            memcpy(&v, p, 4);
            unsigned a = v >> 24, r = (v >> 16) & 0xFF, g = (v >> 8) & 0xFF, b = v & 0xFF;
            if (a != 0 && a != 255) {
                r = (r * 255 + a / 2) / a;
                g = (g * 255 + a / 2) / a;
                b = (b * 255 + a / 2) / a;
                if (r > 255) r = 255;
                if (g > 255) g = 255;
                if (b > 255) b = 255;
            }
            p[0] = (uint8_t)r;
            p[1] = (uint8_t)g;
            p[2] = (uint8_t)b;
            p[3] = (uint8_t)a;
        }
    }
    return LC_OK;
}

void lc_svg_destroy(lc_svg *self) {
    if (!self) return;
    self->lib->g_object_unref(self->handle);
    free(self);
}
