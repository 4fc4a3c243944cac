// The PNG fast decode path (internal to the C shim; see png_fast_decode.c).
#ifndef LC_PNG_FAST_DECODE_H
#define LC_PNG_FAST_DECODE_H

#include <stddef.h>
#include <stdint.h>

/// What png.c hands over once libpng has read everything up to the first IDAT's data.
typedef struct {
    const uint8_t *data;
    size_t size;
    /// Where libpng stopped: just after the first IDAT's length and type.
    size_t idat_data_offset;
    uint32_t width;
    uint32_t height;
    /// PNG colour type 0, 2, 3, 4 or 6, 8 bits per sample, not interlaced, no tRNS colour key.
    int color_type;
    /// Colour type 3: 256 RGBA entries, as libpng's expansion would produce them; else NULL.
    const uint8_t *palette_rgba;
    /// The longest IDAT chunk libpng accepts for this image (its png_check_chunk_length).
    size_t max_chunk_length;
    /// The most bytes the inflated rows may take (they are held whole beside the output).
    size_t max_raw_size;
} lc_png_fast_input;

/// Decodes the image into RGBA8 rows of `out` at `stride`. Returns 1 when it did, with
/// `*end_offset` just after the last IDAT chunk read; 0 when the file is anything but
/// well-formed and complete (the caller then decodes with libpng from where it stood, which
/// gives libpng's own errors and warnings; `out` is then untouched).
int lc_png_fast_decode(const lc_png_fast_input *input, uint8_t *out, size_t stride, size_t *end_offset);

#endif
