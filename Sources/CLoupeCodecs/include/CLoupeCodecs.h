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
/// An encoder stopped because its lc_cancel said so; nothing is returned.
#define LC_CANCELLED (-2)
/// Capacity of every message buffer, terminating NUL included.
#define LC_MESSAGE_CAPACITY 256

/// Asked by an encoder between chunks of its work (rows, passes, frames; the libraries'
/// progress callbacks where they have one): non-zero stops the encode, which frees what it
/// allocated and returns LC_CANCELLED. Every encoder takes one; NULL never stops.
typedef struct {
    int (*is_cancelled)(const void *context);
    const void *context;
} lc_cancel;

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
    /// 1 when an Adobe APP14 marker is present: CMYK is then stored inverted (255 = no ink).
    int adobe_marker;
    /// The ICC profile reassembled from its APP2 segments (libjpeg-turbo checks their sequence
    /// numbers), or NULL. Valid until lc_jpeg_destroy.
    const uint8_t *icc;
    size_t icc_size;
} lc_jpeg_header;

/// Creates a decoder over `data` (not copied: it must outlive the handle). NULL when out of memory.
lc_jpeg *lc_jpeg_create(const uint8_t *data, size_t size);
/// Reads the header up to the first scan; allocates no pixel memory.
int lc_jpeg_read_header(lc_jpeg *jpeg, lc_jpeg_header *header);
/// Chooses DCT scaling `scale_num`/8 (1...8; anything else is an error) and RGBA output;
/// reports the output size, ceil(size * scale_num / 8) per side.
int lc_jpeg_configure(lc_jpeg *jpeg, int scale_num, uint32_t *out_width, uint32_t *out_height);
/// Decodes every scanline into `out` (at least out_height * stride bytes). `max_scans` bounds
/// progressive scans, which is what makes a crafted progressive file slow. CMYK and YCCK files
/// come out as raw CMYK, four bytes per pixel as stored (inverted when `adobe_marker`): the
/// caller converts them, through their profile (lc_color_transform) or lc_cmyk_to_rgba.
int lc_jpeg_decode(lc_jpeg *jpeg, uint8_t *out, size_t stride, int max_scans);
/// Number of libjpeg warnings (corrupt or truncated data that was still decoded).
int lc_jpeg_warning_count(const lc_jpeg *jpeg);
const char *lc_jpeg_message(const lc_jpeg *jpeg);
void lc_jpeg_destroy(lc_jpeg *jpeg);

/// Encodes RGBA (alpha ignored) to a JPEG at `quality` 1...100; `grey` non-zero writes one
/// grey component (the pixels' luma: their value when R = G = B). On success `*out` is a
/// malloc'd buffer the caller frees with lc_free.
int lc_jpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int quality,
                   int progressive, int grey, const lc_cancel *cancel, uint8_t **out, size_t *out_size, char *message);

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
    /// iCCP profile, decompressed, or NULL; valid until lc_png_destroy.
    const uint8_t *icc;
    size_t icc_size;
    /// 1 when an sRGB chunk is present.
    int srgb;
    /// gAMA as the encoding exponent (0.45455 for 1/2.2), or 0 when absent.
    double gamma;
    /// 1 when a cHRM chunk is present; `chromaticities` then holds white x, y, red x, y,
    /// green x, y, blue x, y.
    int has_chromaticities;
    double chromaticities[8];
} lc_png_header;

lc_png *lc_png_create(const uint8_t *data, size_t size);
int lc_png_read_header(lc_png *png, lc_png_header *header);
/// Decodes the whole image (any colour type or depth, interlaced or not) into RGBA8; 16-bit
/// samples are rounded to 8 bits, or with high_byte non-zero keep their high byte (Pillow's way).
/// A well-formed 8-bit non-interlaced image without a tRNS colour key whose inflated rows take
/// at most fast_path_raw_limit bytes is decoded by the shim's own path (libdeflate, SIMD
/// unfiltering) to the same pixels: it holds all the rows at once beside the output, where
/// libpng holds one. Anything else, and any file that path finds fault with, goes through
/// libpng. 0 forces libpng (for the tests that compare the two).
int lc_png_decode(lc_png *png, uint8_t *out, size_t stride, int high_byte, size_t fast_path_raw_limit);
/// Decodes the whole image (any colour type or depth, interlaced or not) into RGBA16 in the
/// machine's byte order (8-bit and lower samples widened to 16 bits), through libpng alone;
/// `stride` is in bytes.
int lc_png_decode16(lc_png *png, uint16_t *out, size_t stride);
/// 1 when lc_png_decode used the fast path.
int lc_png_used_fast_path(const lc_png *png);
/// The largest single allocation libpng made for this decoder (for the tests of its cap).
size_t lc_png_largest_allocation(const lc_png *png);
const char *lc_png_message(const lc_png *png);
void lc_png_destroy(lc_png *png);

/// Encodes RGBA to PNG (`has_alpha` 0 writes RGB; `grey` non-zero writes grey, or grey with
/// alpha, from each pixel's R, for pixels whose R = G = B). `depth` 16 reads `rgba` as 16-bit
/// samples in the machine's byte order (`stride` still in bytes) and writes a 16-bit PNG; else
/// 8-bit. `*out` is freed with lc_free.
int lc_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int has_alpha, int grey, int depth,
                  int compression_level, const lc_cancel *cancel, uint8_t **out, size_t *out_size, char *message);

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
    /// ICCP chunk payload or NULL; valid until lc_webp_destroy.
    const uint8_t *icc;
    size_t icc_size;
} lc_webp_info;

/// Parses the RIFF container only (no pixel decoding). `data` must outlive the handle.
lc_webp *lc_webp_create(const uint8_t *data, size_t size, lc_webp_info *info, char *message);
/// Decodes a still image, scaled to `width`x`height` when that differs from the original.
int lc_webp_decode_still(lc_webp *webp, uint32_t width, uint32_t height, uint8_t *out, size_t stride,
                         char *message);
/// Decodes the next composited animation frame into `out` (canvas size). Returns 1 when a
/// frame was written, 0 at the end, LC_ERROR on failure. `timestamp_ms` is the frame's end time.
/// 1 when an animation's first frame is complete and covers the whole canvas at (0, 0): alone on
/// the empty canvas, it is the first composited frame, and lc_webp_decode_still can scale it.
int lc_webp_first_frame_covers_canvas(const lc_webp *webp);
int lc_webp_next_frame(lc_webp *webp, uint8_t *out, size_t stride, int *timestamp_ms, char *message);
void lc_webp_destroy(lc_webp *webp);

/// Encodes RGBA to WebP: lossy at `quality` 0...100, or lossless when `lossless` is 1.
int lc_webp_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int lossless,
                   float quality, const lc_cancel *cancel, uint8_t **out, size_t *out_size, char *message);
/// Encodes `count` RGBA frames of one size (each `stride` bytes per row) as an animated WebP
/// (libwebpmux's WebPAnimEncoder): each shown `durations_ms[i]`, the whole `loop_count` times
/// (0: forever). `*out` is freed with lc_free.
int lc_webp_encode_animation(const uint8_t *const *frames, const int32_t *durations_ms, uint32_t count, uint32_t width,
                             uint32_t height, size_t stride, int lossless, float quality, int loop_count,
                             const lc_cancel *cancel, uint8_t **out, size_t *out_size, char *message);

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
/// Encodes `count` RGBA frames of one size (each `stride` bytes per row) as a GIF: a palette of
/// up to 256 colours per frame from libimagequant at `speed` 1 (best) ... 10, dithered; alpha
/// under half transparent, the rest opaque. Frames show `delays_cs[i]` hundredths of a second;
/// more than one frame loops `loop_count` times (0: forever). `*out` is freed with lc_free.
int lc_gif_encode(const uint8_t *const *frames, const int32_t *delays_cs, uint32_t count, uint32_t width, uint32_t height,
                  size_t stride, int loop_count, int speed, const lc_cancel *cancel, uint8_t **out, size_t *out_size,
                  char *message);

// MARK: - CICP colour description (HEIF/AVIF nclx, AV1/HEVC bitstreams)

typedef struct {
    /// 1 when the file gives one.
    int present;
    /// ITU-T H.273 ColourPrimaries (1 BT.709/sRGB, 9 BT.2020, 12 Display P3, ...).
    int primaries;
    /// ITU-T H.273 TransferCharacteristics (13 sRGB, 1/6/14/15 BT.709, 8 linear, 16 PQ, 18 HLG).
    int transfer;
} lc_cicp;

// MARK: - Codec libraries loaded on first use (libheif, libavif, libjxl, libtiff, librsvg)

// These five are opened with dlopen the first time their format is decoded or encoded, not
// linked: with the codecs they bring, they cost every process ~8 ms of start-up CPU, and a
// deployment may leave them out. The lc_heif_*, lc_avif_* and lc_jxl_* functions load their
// library themselves and fail with its reason when it cannot be loaded; lc_codec_library_load
// tells that case apart beforehand.

typedef enum {
    LC_LIBRARY_HEIF = 0,
    LC_LIBRARY_AVIF = 1,
    LC_LIBRARY_JXL = 2,
    LC_LIBRARY_TIFF = 3,
    LC_LIBRARY_SVG = 4,
} lc_codec_library;

/// Loads the library on the first call, once per process whatever the outcome (thread-safe).
/// LC_OK when usable; else LC_ERROR with the reason, naming the library, in `message` (when not
/// NULL).
int lc_codec_library_load(lc_codec_library library, char *message);
/// The file name the library is loaded by (its SONAME, e.g. "libheif.so.1").
const char *lc_codec_library_name(lc_codec_library library);
/// Tests only: loads the library from `file_name` alone instead (copied). Takes effect only
/// when called before the library's first load, in a process where nothing else loads it
/// concurrently; returns LC_ERROR when the load has already been attempted.
int lc_codec_library_override_for_testing(lc_codec_library library, const char *file_name);

// MARK: - HEIF (libheif)

typedef struct lc_heif lc_heif;

typedef struct {
    /// Size after libheif's transformations (irot, imir, clap), which it applies while decoding.
    uint32_t width;
    uint32_t height;
    int has_alpha;
    int bit_depth;
    /// Top-level images in the file (the primary one is decoded).
    uint32_t image_count;
    /// Raw ICC profile of the primary image (colr prof/rICC), or NULL; valid until destroy.
    const uint8_t *icc;
    size_t icc_size;
    lc_cicp cicp;
    /// Size of the largest thumbnail item, 0 when there is none.
    uint32_t thumbnail_width;
    uint32_t thumbnail_height;
} lc_heif_info;

/// Parses the container (no pixel decoding). Images wider or taller than `max_side` are refused
/// by libheif while parsing (0, or above 32768: libheif's default, 32768); a grid or overlay
/// canvas larger than the primary image's declared longest side is refused when decoding.
/// `data` must outlive the handle.
lc_heif *lc_heif_create(const uint8_t *data, size_t size, int max_side, lc_heif_info *info, char *message);
/// Decodes the primary image (or, when `thumbnail` is 1, its largest thumbnail) as RGBA8 into
/// `out`; the decoded size must be `width`x`height` (the header's), else it is an error.
int lc_heif_decode(lc_heif *heif, int thumbnail, uint32_t width, uint32_t height, uint8_t *out, size_t stride, char *message);
void lc_heif_destroy(lc_heif *heif);
/// Encodes RGBA (`has_alpha` 0 writes RGB) as an 8-bit HEIC (HEVC by libheif's encoder, x265 in
/// Debian) at libheif's lossy `quality` 0...100. `*out` is freed with lc_free.
int lc_heif_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int has_alpha, int quality,
                   const lc_cancel *cancel, uint8_t **out, size_t *out_size, char *message);

// MARK: - AVIF (libavif)

typedef struct lc_avif lc_avif;

typedef struct {
    uint32_t width;
    uint32_t height;
    int depth;
    int has_alpha;
    uint32_t frame_count;
    const uint8_t *icc;
    size_t icc_size;
    lc_cicp cicp;
    /// irot: anti-clockwise quarter turns (0 when absent).
    int rotation;
    /// imir: 0 top and bottom exchanged, 1 left and right exchanged, -1 absent.
    int mirror;
    const uint8_t *exif;
    size_t exif_size;
} lc_avif_info;

/// Parses the container and the first image's header. libavif refuses more than `max_pixels`
/// pixels or `max_frames` frames while parsing (0: its defaults). `data` must outlive the handle.
lc_avif *lc_avif_create(const uint8_t *data, size_t size, uint32_t max_pixels, uint32_t max_frames, lc_avif_info *info, char *message);
/// Decodes the first image as RGBA8 (deeper images rounded to 8 bits), transformations not applied.
int lc_avif_decode(lc_avif *avif, uint8_t *out, size_t stride, char *message);
void lc_avif_destroy(lc_avif *avif);
/// Encodes RGBA as 8-bit 4:2:0 AVIF (AV1 by libaom) tagged sRGB, at `quality` 0...100 and
/// libaom `speed` 0...10. `has_alpha` 0 drops alpha. `icc` (may be NULL) is embedded as the
/// colr profile. `*out` is freed with lc_free.
int lc_avif_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int has_alpha, int quality,
                   int speed, const uint8_t *icc, size_t icc_size, const lc_cancel *cancel, uint8_t **out, size_t *out_size,
                   char *message);

// MARK: - JPEG XL (libjxl)

typedef struct lc_jxl lc_jxl;

typedef struct {
    /// Size as stored, before orientation.
    uint32_t width;
    uint32_t height;
    /// EXIF-style orientation 1...8 (JPEG XL uses the same values); not applied by the decoder.
    int orientation;
    int has_alpha;
    /// 1 for a grey image (output expanded to R = G = B).
    int grey;
    int bits;
    int animated;
    /// ICC profile of the output pixels (libjxl synthesises one for enumerated colour spaces).
    const uint8_t *icc;
    size_t icc_size;
} lc_jxl_info;

/// Reads the header up to the colour encoding; allocates no pixel memory. `data` must outlive the handle.
lc_jxl *lc_jxl_create(const uint8_t *data, size_t size, lc_jxl_info *info, char *message);
/// Decodes the first frame as RGBA8 into a tightly packed `out` (stride = width * 4).
int lc_jxl_decode(lc_jxl *jxl, uint8_t *out, size_t stride, uint32_t width, uint32_t height, char *message);
void lc_jxl_destroy(lc_jxl *jxl);
/// Encodes RGBA (`has_alpha` 0 writes RGB) as a lossy 8-bit JPEG XL tagged sRGB, at `quality`
/// 0...100 (cjxl's mapping to a distance) and libjxl `effort` 1...9. `*out` is freed with lc_free.
int lc_jxl_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int has_alpha, int quality, int effort,
                  const lc_cancel *cancel, uint8_t **out, size_t *out_size, char *message);

// MARK: - TIFF (libtiff)

typedef struct lc_tiff lc_tiff;

typedef struct {
    /// Size of the first image (directory; the only one decoded) as stored, before orientation.
    uint32_t width;
    uint32_t height;
    /// The Orientation tag, 1...8 (EXIF's values); not applied by the decoder.
    int orientation;
    /// 1 for grey (PhotometricInterpretation MinIsBlack or MinIsWhite; output R = G = B).
    int grey;
    /// 1 for CMYK, which libtiff converts to RGB without a profile.
    int cmyk;
    /// 1 when an extra sample is alpha (associated or not).
    int has_alpha;
    /// The first image's ICC profile (not reported for CMYK), or NULL; valid until destroy.
    const uint8_t *icc;
    size_t icc_size;
    /// 1 when lc_tiff_decode16 reads the image: 16-bit unsigned RGB or MinIsBlack grey, alone
    /// or with an unassociated alpha, in contiguous strips.
    int deep;
} lc_tiff_info;

/// Reads the first image's header; allocates no pixel memory. No single allocation libtiff
/// makes for this file may exceed `max_allocation` bytes. `data` must outlive the handle.
lc_tiff *lc_tiff_create(const uint8_t *data, size_t size, size_t max_allocation, lc_tiff_info *info, char *message);
/// Decodes the first image as straight RGBA8 into a tightly packed `out` (stride = width * 4),
/// rows as stored (the orientation not applied).
int lc_tiff_decode(lc_tiff *tiff, uint8_t *out, size_t stride, uint32_t width, uint32_t height, char *message);
/// Decodes the first image as straight RGBA16 in the machine's byte order into a tightly packed
/// `out` (width * 4 samples a row), rows as stored; only for an image `info.deep` says it reads.
int lc_tiff_decode16(lc_tiff *tiff, uint16_t *out, uint32_t width, uint32_t height, char *message);
void lc_tiff_destroy(lc_tiff *tiff);
/// Encodes RGBA (`has_alpha` 0 writes RGB; `grey` non-zero writes MinIsBlack grey, or grey
/// with alpha, from each pixel's R, for pixels whose R = G = B) as an 8-bit Deflate-compressed
/// TIFF. `*out` is freed with lc_free.
int lc_tiff_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int has_alpha, int grey,
                   const lc_cancel *cancel, uint8_t **out, size_t *out_size, char *message);

// MARK: - SVG (librsvg)

typedef struct lc_svg lc_svg;

typedef struct {
    /// The document's intrinsic size in pixels at 96 DPI (its width and height, else its
    /// viewBox's), unrounded.
    double width;
    double height;
} lc_svg_info;

/// Parses the document with librsvg's default limits, reading nothing outside it; allocates no
/// pixel memory. NULL with the reason in `message` for a document librsvg refuses or one
/// without a size. `data` need not outlive the call.
lc_svg *lc_svg_create(const uint8_t *data, size_t size, lc_svg_info *info, char *message);
/// Renders the document fitted into a `viewport_width`×`viewport_height` rectangle at the
/// top left of a `width`×`height` straight RGBA8 `out` (rows `stride` bytes apart, a multiple
/// of 4), transparent where nothing is drawn.
int lc_svg_render(lc_svg *svg, uint8_t *out, size_t stride, uint32_t width, uint32_t height, double viewport_width,
                  double viewport_height, char *message);
void lc_svg_destroy(lc_svg *svg);

// MARK: - Colour (lcms2)

#define LC_COLOR_SPACE_OTHER 0
#define LC_COLOR_SPACE_RGB 1
#define LC_COLOR_SPACE_GREY 2
#define LC_COLOR_SPACE_CMYK 3

/// Layouts of the pixels a transform converts, in place, in an RGBA8 buffer.
#define LC_PIXELS_RGBA 0
/// Grey expanded to R = G = B (alpha kept); R is read.
#define LC_PIXELS_GREY 1
/// Four bytes of CMYK per pixel, 255 = full ink; alpha is set to 255.
#define LC_PIXELS_CMYK 2
/// Four bytes of CMYK per pixel as Adobe stores it, 255 = no ink; alpha is set to 255.
#define LC_PIXELS_CMYK_INVERTED 3

typedef struct lc_color_transform lc_color_transform;

/// Parses an ICC profile: its colour space (LC_COLOR_SPACE_*) and whether it is sRGB in all
/// but its bytes (matrix and curves within an 8-bit step of sRGB's). LC_ERROR when lcms2
/// cannot read it.
int lc_color_profile_inspect(const uint8_t *icc, size_t size, int *space, int *srgb, char *message);
/// Builds a transform from the profile to sRGB (relative colorimetric, black-point
/// compensation) for pixels laid out as `pixels` (LC_PIXELS_*). NULL with a message when the
/// profile is unreadable or does not match the layout. Safe to apply from several threads.
lc_color_transform *lc_color_transform_create(const uint8_t *icc, size_t size, int pixels, char *message);
/// Transfer functions for lc_color_transform_create_rgb.
#define LC_TRANSFER_GAMMA 0
#define LC_TRANSFER_SRGB 1
/// Builds an RGBA transform to sRGB from an RGB space given by chromaticities (8 values as in
/// lc_png_header, or NULL for BT.709 primaries and D65) and a transfer function: a pure power
/// of 1 / `gamma` (PNG's gAMA is the encoding exponent) or sRGB's curve.
lc_color_transform *lc_color_transform_create_rgb(double gamma, const double *chromaticities, int transfer, char *message);
/// Converts `height` rows of `width` pixels in place.
void lc_color_transform_apply(const lc_color_transform *transform, uint8_t *pixels, size_t stride, uint32_t width, uint32_t height);
/// Converts `count` RGBA16 pixels (the machine's byte order) in place, alpha kept; 1 when it
/// did, 0 when the transform has no 16-bit form (only lc_color_transform_create_rgb's have one).
int lc_color_transform_apply16(const lc_color_transform *transform, uint16_t *pixels, size_t count);
void lc_color_transform_destroy(lc_color_transform *transform);
/// 1 when the transform runs its own matrix/TRC loop (checked against lcms2's bytes when it
/// was built) rather than lcms2's cmsDoTransform.
int lc_color_transform_is_matrix_shaper(const lc_color_transform *transform);
/// lcms2's sRGB profile, serialized (for outputs that embed it). `*out` is freed with lc_free.
int lc_srgb_profile(uint8_t **out, size_t *size, char *message);
/// Converts raw CMYK to RGBA in place without a profile, as Pillow's convert("RGB") does:
/// R = (255 - C)(255 - K) / 255 on uninverted values.
void lc_cmyk_to_rgba(uint8_t *pixels, size_t stride, uint32_t width, uint32_t height, int inverted);

// MARK: - Memory

/// Frees a buffer returned by an encoder.
void lc_free(void *pointer);

#endif
