// The part of librsvg's, cairo's and GLib's C interfaces that svg.c calls, declared here
// rather than included: their headers live under per-architecture GLib include folders that a
// SwiftPM C target cannot name without unsafe flags, and the libraries are not linked anyway
// (codec_libraries.h opens librsvg on first use; cairo and GLib come with it as its
// dependencies, and dlsym on its handle finds their symbols). Each prototype, enum value and
// struct layout below is the one in librsvg 2.52+'s rsvg.h and rsvg-cairo.h, cairo 1.x's
// cairo.h and GLib 2.x's gerror.h and gobject.h, whose C ABIs those libraries keep stable;
// the corpus tests compare the rendered pixels with rsvg-convert's, which a wrong one would
// not survive. Internal to CLoupeCodecs (not in include/).
#ifndef LC_RSVG_API_H
#define LC_RSVG_API_H

#include <stddef.h>
#include <stdint.h>

typedef struct _RsvgHandle RsvgHandle;
typedef struct _cairo_surface cairo_surface_t;
typedef struct _cairo cairo_t;
typedef int gboolean;

/// GLib's GError: its layout is public API.
typedef struct {
    uint32_t domain;
    int code;
    char *message;
} GError;

/// rsvg.h's RsvgUnit, in its order.
typedef enum {
    RSVG_UNIT_PERCENT,
    RSVG_UNIT_PX,
    RSVG_UNIT_EM,
    RSVG_UNIT_EX,
    RSVG_UNIT_IN,
    RSVG_UNIT_CM,
    RSVG_UNIT_MM,
    RSVG_UNIT_PT,
    RSVG_UNIT_PC
} RsvgUnit;

typedef struct {
    double length;
    RsvgUnit unit;
} RsvgLength;

typedef struct {
    double x;
    double y;
    double width;
    double height;
} RsvgRectangle;

/// cairo.h's CAIRO_FORMAT_ARGB32: premultiplied, native-endian 32-bit pixels.
#define LC_CAIRO_FORMAT_ARGB32 0
/// cairo.h's CAIRO_STATUS_SUCCESS.
#define LC_CAIRO_STATUS_SUCCESS 0

RsvgHandle *rsvg_handle_new_from_data(const uint8_t *data, size_t data_len, GError **error);
void rsvg_handle_set_dpi(RsvgHandle *handle, double dpi);
gboolean rsvg_handle_get_intrinsic_size_in_pixels(RsvgHandle *handle, double *out_width, double *out_height);
void rsvg_handle_get_intrinsic_dimensions(RsvgHandle *handle, gboolean *out_has_width, RsvgLength *out_width, gboolean *out_has_height,
                                          RsvgLength *out_height, gboolean *out_has_viewbox, RsvgRectangle *out_viewbox);
gboolean rsvg_handle_render_document(RsvgHandle *handle, cairo_t *cr, const RsvgRectangle *viewport, GError **error);
void g_object_unref(void *object);
void g_error_free(GError *error);
cairo_surface_t *cairo_image_surface_create_for_data(unsigned char *data, int format, int width, int height, int stride);
int cairo_surface_status(cairo_surface_t *surface);
void cairo_surface_flush(cairo_surface_t *surface);
void cairo_surface_destroy(cairo_surface_t *surface);
cairo_t *cairo_create(cairo_surface_t *target);
int cairo_status(cairo_t *cr);
void cairo_destroy(cairo_t *cr);

#endif
