// C shim for LoupeCodecs.
//
// Why C: libjpeg and libpng report fatal errors through a callback that must not return, so
// the only safe recovery is setjmp/longjmp, and Swift can neither call setjmp nor be jumped
// over. Every entry point here owns its jmp_buf, turns a library failure into a return code
// plus a message, and frees whatever it allocated on both paths. The GIF compositor lives here
// too because giflib hands out raw indexed rows and leaves disposal and transparency to us.
//
// Conventions for every function below:
//   - return LC_OK (0) on success, LC_ERROR (-1) on failure, with the library's message copied
//     into the handle (read with the matching *_message function) or into `message`;
//   - output pixels are RGBA, 8 bits per channel, straight (not premultiplied) alpha, written
//     row by row at `stride` bytes per row into a caller-owned buffer;
//   - handles are freed by their *_destroy function, which accepts NULL.
#ifndef CLOUPECODECS_H
#define CLOUPECODECS_H

#include <stddef.h>
#include <stdint.h>

#define LC_OK 0
#define LC_ERROR (-1)
/// Capacity of every message buffer, terminating NUL included.
#define LC_MESSAGE_CAPACITY 256

// MARK: - JPEG (libjpeg-turbo)

typedef struct lc_jpeg lc_jpeg;

typedef struct {
    uint32_t width;
    uint32_t height;
    int components;
    /// libjpeg's J_COLOR_SPACE of the file (1 gray, 2 RGB, 3 YCbCr, 4 CMYK, 5 YCCK).
    int color_space;
    int progressive;
    /// First APP1 "Exif" segment payload (after the 6-byte "Exif\0\0" header), or NULL.
    /// Valid until lc_jpeg_destroy.
    const uint8_t *exif;
    size_t exif_size;
} lc_jpeg_header;

/// Creates a decoder over `data` (not copied: it must outlive the handle). NULL when out of memory.
lc_jpeg *lc_jpeg_create(const uint8_t *data, size_t size);
/// Reads the header up to the first scan; allocates no pixel memory.
int lc_jpeg_read_header(lc_jpeg *jpeg, lc_jpeg_header *header);
/// Chooses DCT scaling 1/`scale_denom` (1, 2, 4 or 8) and RGBA output; reports the output size.
int lc_jpeg_configure(lc_jpeg *jpeg, int scale_denom, uint32_t *out_width, uint32_t *out_height);
/// Decodes every scanline into `out` (at least out_height * stride bytes). `max_scans` bounds
/// progressive scans, which is what makes a crafted progressive file slow.
int lc_jpeg_decode(lc_jpeg *jpeg, uint8_t *out, size_t stride, int max_scans);
/// Number of libjpeg warnings (corrupt or truncated data that was still decoded).
int lc_jpeg_warning_count(const lc_jpeg *jpeg);
const char *lc_jpeg_message(const lc_jpeg *jpeg);
void lc_jpeg_destroy(lc_jpeg *jpeg);

/// Encodes RGBA (alpha ignored) to a JPEG at `quality` 1...100. On success `*out` is a
/// malloc'd buffer the caller frees with lc_free.
int lc_jpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int quality,
                   int progressive, uint8_t **out, size_t *out_size, char *message);

// MARK: - PNG (libpng)

typedef struct lc_png lc_png;

typedef struct {
    uint32_t width;
    uint32_t height;
    int bit_depth;
    int color_type;
    int interlaced;
    /// eXIf chunk payload or NULL; valid until lc_png_destroy.
    const uint8_t *exif;
    size_t exif_size;
} lc_png_header;

lc_png *lc_png_create(const uint8_t *data, size_t size);
int lc_png_read_header(lc_png *png, lc_png_header *header);
/// Decodes the whole image (any colour type or depth, interlaced or not) into RGBA8.
int lc_png_decode(lc_png *png, uint8_t *out, size_t stride);
const char *lc_png_message(const lc_png *png);
void lc_png_destroy(lc_png *png);

/// Encodes RGBA to PNG (`has_alpha` 0 writes RGB). `*out` is freed with lc_free.
int lc_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int has_alpha,
                  int compression_level, uint8_t **out, size_t *out_size, char *message);

// MARK: - WebP (libwebp, libwebpdemux)

typedef struct lc_webp lc_webp;

typedef struct {
    uint32_t width;
    uint32_t height;
    int has_alpha;
    int has_animation;
    uint32_t frame_count;
    uint32_t loop_count;
    const uint8_t *exif;
    size_t exif_size;
} lc_webp_info;

/// Parses the RIFF container only (no pixel decoding). `data` must outlive the handle.
lc_webp *lc_webp_create(const uint8_t *data, size_t size, lc_webp_info *info, char *message);
/// Decodes a still image, scaled to `width`x`height` when that differs from the original.
int lc_webp_decode_still(lc_webp *webp, uint32_t width, uint32_t height, uint8_t *out, size_t stride,
                         char *message);
/// Decodes the next composited animation frame into `out` (canvas size). Returns 1 when a
/// frame was written, 0 at the end, LC_ERROR on failure. `timestamp_ms` is the frame's end time.
int lc_webp_next_frame(lc_webp *webp, uint8_t *out, size_t stride, int *timestamp_ms, char *message);
void lc_webp_destroy(lc_webp *webp);

/// Encodes RGBA to WebP: lossy at `quality` 0...100, or lossless when `lossless` is 1.
int lc_webp_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int lossless,
                   float quality, uint8_t **out, size_t *out_size, char *message);

// MARK: - GIF (giflib)

typedef struct lc_gif lc_gif;

typedef struct {
    uint32_t width;
    uint32_t height;
    /// Frames found, counting stops at max_frames + 1.
    uint32_t frame_count;
    /// NETSCAPE2.0 loop count: -1 when absent, 0 for forever.
    int loop_count;
    int interlaced;
} lc_gif_info;

/// Walks the whole file without decompressing pixels: screen size, frame count, loop count.
int lc_gif_scan(const uint8_t *data, size_t size, uint32_t max_frames, lc_gif_info *info, char *message);
lc_gif *lc_gif_create(const uint8_t *data, size_t size, char *message);
/// Decodes the next frame, composites it onto the canvas (disposal, transparency, offsets,
/// clipping) and copies the canvas to `out`. Returns 1 when a frame was written, 0 at the end,
/// LC_ERROR on failure. `delay_cs` is the frame's delay in hundredths of a second.
int lc_gif_next_frame(lc_gif *gif, uint8_t *out, size_t stride, int *delay_cs, char *message);
void lc_gif_destroy(lc_gif *gif);

// MARK: - Memory

/// Frees a buffer returned by an encoder.
void lc_free(void *pointer);

#endif
