// libpng decode/encode with setjmp-based error recovery (see CLoupeCodecs.h).
#include "CLoupeCodecs.h"
#include "encoder_setup.h"
#include "png_fast_decode.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <png.h>

// The largest ancillary chunk libpng will allocate for (see lc_png_create).
#define LC_PNG_CHUNK_LIMIT (16u << 20)

struct lc_png {
    png_structp png;
    png_infop info;
    jmp_buf jump;
    char message[LC_MESSAGE_CAPACITY];
    const uint8_t *data;
    size_t size;
    size_t offset;
    // Owned here, not on the stack, so a longjmp out of png_read_image cannot leak it.
    png_bytep *rows;
    // 1 once png_fast_decode.c, not png_read_image, decoded the pixels (for the tests).
    int used_fast_path;
    // The largest single allocation libpng made (for the tests of allocate()'s cap).
    size_t largest_allocation;
};

// libpng requires its error callback not to return.
static void on_png_error(png_structp png, png_const_charp message) {
    lc_png *self = (lc_png *)png_get_error_ptr(png);
    snprintf(self->message, sizeof self->message, "%s", message);
    longjmp(self->jump, 1);
}

// Warnings (ancillary chunk problems, benign errors) are not failures; keep stderr clean.
static void on_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

static void read_from_memory(png_structp png, png_bytep out, size_t length) {
    lc_png *self = (lc_png *)png_get_io_ptr(png);
    if (length > self->size - self->offset) png_error(png, "unexpected end of PNG data");
    memcpy(out, self->data + self->offset, length);
    self->offset += length;
}

// Every allocation libpng makes comes here, so that none can exceed what the image needs: a
// chunk handler allocates a chunk's declared length before reading it (a 3.7 KB file whose
// zTXt declared 2 GB took 2 GB of memory; fuzzing found it, and sPLT and pCAL did the same
// with png_set_chunk_malloc_max set). A refusal is libpng's own "out of memory" error or a
// skipped chunk. The cap leaves room for libpng's row buffers, the widest at 8 bytes a pixel.
static png_voidp allocate(png_structp png, png_alloc_size_t size) {
    lc_png *self = (lc_png *)png_get_mem_ptr(png);
    size_t width = self->info ? png_get_image_width(png, self->info) : 0;
    size_t cap = LC_PNG_CHUNK_LIMIT + 2 * (width * 8 + 64);
    if (size > cap) return NULL;
    if (size > self->largest_allocation) self->largest_allocation = size;
    return malloc(size);
}

static void release(png_structp png, png_voidp pointer) {
    (void)png;
    free(pointer);
}

lc_png *lc_png_create(const uint8_t *data, size_t size) {
    lc_png *self = calloc(1, sizeof *self);
    if (!self) return NULL;
    self->data = data;
    self->size = size;
    self->png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, self, on_png_error, on_png_warning, self, allocate, release);
    if (self->png) self->info = png_create_info_struct(self->png);
    if (!self->png || !self->info) {
        lc_png_destroy(self);
        return NULL;
    }
    png_set_read_fn(self->png, self, read_from_memory);
    // The pixel limit is ours (checked in Swift before any pixel memory exists); libpng's own
    // default of 1,000,000 per side would reject some files with its own message first.
    png_set_user_limits(self->png, 0x7fffffff, 0x7fffffff);
    // No chunk we read (iCCP's profile, eXIf) comes near 16 MiB: libpng refuses to inflate a
    // compressed one past it (allocate() refuses the rest). IDAT is measured against the
    // image's own size instead (png_check_chunk_length).
    png_set_chunk_malloc_max(self->png, LC_PNG_CHUNK_LIMIT);
    // Nor may a file keep libpng storing ancillary chunks without end.
    png_set_chunk_cache_max(self->png, 1000);
    // The ancillary chunks nothing here uses are skipped unread: not allocated, inflated or
    // kept (colour: iCCP, sRGB, gAMA, cHRM; tRNS; eXIf for orientation are still read).
    static const png_byte unused_chunks[] = {
        'b', 'K', 'G', 'D', '\0', 'h', 'I', 'S', 'T', '\0', 'o', 'F', 'F', 's', '\0', 'p', 'C', 'A', 'L', '\0',
        'p', 'H', 'Y', 's', '\0', 's', 'B', 'I', 'T', '\0', 's', 'C', 'A', 'L', '\0', 's', 'P', 'L', 'T', '\0',
        't', 'I', 'M', 'E', '\0', 't', 'E', 'X', 't', '\0', 'z', 'T', 'X', 't', '\0', 'i', 'T', 'X', 't', '\0',
    };
    png_set_keep_unknown_chunks(self->png, PNG_HANDLE_CHUNK_NEVER, unused_chunks, (int)(sizeof unused_chunks / 5));
    return self;
}

int lc_png_read_header(lc_png *self, lc_png_header *header) {
    if (setjmp(self->jump)) return LC_ERROR;
    png_read_info(self->png, self->info);
    memset(header, 0, sizeof *header);
    header->width = png_get_image_width(self->png, self->info);
    header->height = png_get_image_height(self->png, self->info);
    header->bit_depth = png_get_bit_depth(self->png, self->info);
    header->color_type = png_get_color_type(self->png, self->info);
    header->interlaced = png_get_interlace_type(self->png, self->info) != PNG_INTERLACE_NONE;
    png_uint_32 exif_size = 0;
    png_bytep exif = NULL;
    if (png_get_eXIf_1(self->png, self->info, &exif_size, &exif) && exif) {
        header->exif = exif;
        header->exif_size = exif_size;
    }
    // libpng has already checked the iCCP profile's header and its colour space against the
    // colour type, dropping (with a warning) a profile that fails.
    png_charp icc_name = NULL;
    int compression = 0;
    png_bytep icc = NULL;
    png_uint_32 icc_size = 0;
    if (png_get_iCCP(self->png, self->info, &icc_name, &compression, &icc, &icc_size) && icc) {
        header->icc = icc;
        header->icc_size = icc_size;
    }
    int intent = 0;
    header->srgb = png_get_sRGB(self->png, self->info, &intent) ? 1 : 0;
    double gamma = 0;
    if (png_get_gAMA(self->png, self->info, &gamma)) header->gamma = gamma;
    double *c = header->chromaticities;
    if (png_get_cHRM(self->png, self->info, &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7])) {
        header->has_chromaticities = 1;
    }
    return LC_OK;
}

// libpng's png_check_chunk_length for an IDAT: the larger of the chunk allocation limit and
// the image's raw size plus zlib's worst-case overhead. The fast path leaves longer chunks to
// libpng, which rejects them.
static size_t max_idat_length(png_structp png, png_infop info, unsigned channels) {
    const size_t uint31_max = 0x7fffffff;
    size_t limit = uint31_max;
    png_alloc_size_t chunk_max = png_get_chunk_malloc_max(png);
    if (chunk_max > 0 && chunk_max < limit) limit = chunk_max;
    size_t row_factor = (size_t)png_get_image_width(png, info) * channels + 1;
    png_uint_32 height = png_get_image_height(png, info);
    size_t idat_limit = height > 0xffffffffu / row_factor ? uint31_max : (size_t)height * row_factor;
    size_t overhead_rows = row_factor > 32566 ? 32566 : row_factor;
    idat_limit += 6 + 5 * (idat_limit / overhead_rows + 1);
    if (idat_limit > uint31_max) idat_limit = uint31_max;
    return limit < idat_limit ? idat_limit : limit;
}

// The fast path (png_fast_decode.c) for what it handles, with the facts libpng parsed; 0 sends
// the image to png_read_image from exactly where libpng left the input.
static int decode_fast(lc_png *self, uint8_t *out, size_t stride, size_t raw_limit) {
    png_structp png = self->png;
    png_infop info = self->info;
    if (png_get_bit_depth(png, info) != 8 || png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) return 0;
    int color_type = png_get_color_type(png, info);
    unsigned channels = 0;
    uint8_t palette[256 * 4];
    switch (color_type) {
    case PNG_COLOR_TYPE_GRAY: channels = 1; break;
    case PNG_COLOR_TYPE_RGB: channels = 3; break;
    case PNG_COLOR_TYPE_GRAY_ALPHA: channels = 2; break;
    case PNG_COLOR_TYPE_RGB_ALPHA: channels = 4; break;
    case PNG_COLOR_TYPE_PALETTE: {
        // As png_set_expand does it: entries past the palette's end are black (libpng keeps
        // 256 zeroed entries), alphas past tRNS's end are opaque.
        png_colorp entries = NULL;
        int count = 0;
        if (!png_get_PLTE(png, info, &entries, &count) || !entries || count < 0 || count > 256) return 0;
        png_bytep alphas = NULL;
        int alpha_count = 0;
        if (!png_get_tRNS(png, info, &alphas, &alpha_count, NULL) || !alphas) alpha_count = 0;
        if (alpha_count < 0 || alpha_count > 256) return 0;
        for (int i = 0; i < 256; i++) {
            uint8_t *entry = palette + 4 * i;
            entry[0] = i < count ? entries[i].red : 0;
            entry[1] = i < count ? entries[i].green : 0;
            entry[2] = i < count ? entries[i].blue : 0;
            entry[3] = i < alpha_count ? alphas[i] : 0xff;
        }
        channels = 1;
        break;
    }
    default:
        return 0;
    }
    // A tRNS colour key (grey, RGB) stays with libpng; libpng drops tRNS for types with alpha.
    if (color_type != PNG_COLOR_TYPE_PALETTE && png_get_valid(png, info, PNG_INFO_tRNS)) return 0;
    lc_png_fast_input input = {
        .data = self->data,
        .size = self->size,
        .idat_data_offset = self->offset,
        .width = png_get_image_width(png, info),
        .height = png_get_image_height(png, info),
        .color_type = color_type,
        .palette_rgba = color_type == PNG_COLOR_TYPE_PALETTE ? palette : NULL,
        .max_chunk_length = max_idat_length(png, info, channels),
        .max_raw_size = raw_limit,
    };
    size_t start = self->offset, end = 0;
    if (!lc_png_fast_decode(&input, out, stride, &end)) {
        self->offset = start;
        return 0;
    }
    self->offset = end;
    return 1;
}

// Reads every row into `out`, `stride` bytes apart, with the transformations already set;
// errors longjmp to the caller's setjmp. png_read_image handles interlace passes itself.
// Trailing chunks after the image data are not read: a file whose pixels are complete decodes
// even without IEND, as in libvips and browsers.
static void read_rows(lc_png *self, png_bytep out, size_t stride) {
    png_structp png = self->png;
    png_infop info = self->info;
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) > stride) png_error(png, "row longer than the output stride");
    png_uint_32 height = png_get_image_height(png, info);
    self->rows = malloc(sizeof(png_bytep) * (height ? height : 1));
    if (!self->rows) png_error(png, "out of memory");
    for (png_uint_32 y = 0; y < height; y++) self->rows[y] = out + (size_t)y * stride;
    png_read_image(png, self->rows);
}

int lc_png_decode(lc_png *self, uint8_t *out, size_t stride, int high_byte, size_t fast_path_raw_limit) {
    if (setjmp(self->jump)) return LC_ERROR;
    // Before any transformation is set: png_read_update_info rewrites the info struct's colour
    // type, depth and tRNS to describe the transformed rows, and the fast path needs the file's.
    if (fast_path_raw_limit > 0 && decode_fast(self, out, stride, fast_path_raw_limit)) {
        self->used_fast_path = 1;
        return LC_OK;
    }
    png_structp png = self->png;
    png_infop info = self->info;
    int color_type = png_get_color_type(png, info);
    // Normalise every colour type and depth to RGBA8: palette and low-bit gray expand, tRNS
    // becomes alpha, 16-bit scales down with rounding (or keeps its high byte, as Pillow
    // does, when asked), gray becomes RGB, opaque gets A=255.
    png_set_expand(png);
    if (high_byte) png_set_strip_16(png); else png_set_scale_16(png);
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xff, PNG_FILLER_AFTER);
    read_rows(self, out, stride);
    return LC_OK;
}

int lc_png_decode16(lc_png *self, uint16_t *out, size_t stride) {
    if (setjmp(self->jump)) return LC_ERROR;
    png_structp png = self->png;
    png_infop info = self->info;
    int color_type = png_get_color_type(png, info);
    // Every colour type and depth to RGBA16 in the machine's byte order: palette and low-bit
    // grey expand, 8-bit samples widen (v * 257), tRNS becomes alpha, grey becomes RGB,
    // opaque gets A=65535.
    png_set_expand_16(png);
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xffff, PNG_FILLER_AFTER);
    {
        // PNG stores samples big-endian.
        const uint16_t probe = 1;
        if (*(const uint8_t *)&probe == 1) png_set_swap(png);
    }
    read_rows(self, (png_bytep)out, stride);
    return LC_OK;
}

const char *lc_png_message(const lc_png *self) { return self->message; }

int lc_png_used_fast_path(const lc_png *self) { return self->used_fast_path; }

size_t lc_png_largest_allocation(const lc_png *self) { return self->largest_allocation; }

void lc_png_destroy(lc_png *self) {
    if (!self) return;
    if (self->png) png_destroy_read_struct(&self->png, self->info ? &self->info : NULL, NULL);
    free(self->rows);
    free(self);
}

typedef struct {
    png_structp png;
    png_infop info;
    jmp_buf jump;
    char message[LC_MESSAGE_CAPACITY];
    lc_output_buffer output;
    uint8_t *row;  // RGB staging row when alpha is dropped
} lc_png_encoder;

static void on_png_encode_error(png_structp png, png_const_charp message) {
    lc_png_encoder *enc = (lc_png_encoder *)png_get_error_ptr(png);
    snprintf(enc->message, sizeof enc->message, "%s", message);
    longjmp(enc->jump, 1);
}

static void write_to_memory(png_structp png, png_bytep bytes, size_t length) {
    lc_png_encoder *enc = (lc_png_encoder *)png_get_io_ptr(png);
    const char *error = lc_output_buffer_reserve(&enc->output, length);
    if (error) png_error(png, error);
    memcpy(enc->output.bytes + enc->output.size, bytes, length);
    enc->output.size += length;
}

static void flush_memory(png_structp png) { (void)png; }

static int png_encode_into(lc_png_encoder *enc, const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride,
                           int has_alpha, int grey, int depth, int level, const lc_cancel *cancel) {
    if (setjmp(enc->jump)) return LC_ERROR;
    png_set_write_fn(enc->png, enc, write_to_memory, flush_memory);
    int color_type = grey ? (has_alpha ? PNG_COLOR_TYPE_GRAY_ALPHA : PNG_COLOR_TYPE_GRAY)
                          : (has_alpha ? PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_RGB);
    // Samples per pixel in the file: the first channels of each RGBA pixel (grey keeps R, which
    // equals G and B), then alpha.
    size_t colors = grey ? 1 : 3, channels = colors + (has_alpha ? 1 : 0);
    size_t sample_bytes = depth == 16 ? 2 : 1;
    png_set_IHDR(enc->png, enc->info, width, height, depth, color_type, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(enc->png, level);
    png_write_info(enc->png, enc->info);
    // 16-bit rows always go through the staging row: PNG wants them big-endian.
    if (channels != 4 || depth == 16) {
        enc->row = malloc((size_t)width * channels * sample_bytes);
        if (!enc->row) png_error(enc->png, "out of memory");
    }
    for (uint32_t y = 0; y < height; y++) {
        // Each row is filtered and deflated as it is written: a check per row bounds the wait.
        if (lc_encode_cancelled(cancel, enc->message)) return LC_CANCELLED;
        const uint8_t *source = rgba + (size_t)y * stride;
        if (depth == 16) {
            const uint16_t *samples = (const uint16_t *)(const void *)source;
            for (uint32_t x = 0; x < width; x++) {
                uint8_t *pixel = enc->row + 2 * channels * (size_t)x;
                const uint16_t *from = samples + 4 * (size_t)x;
                for (size_t c = 0; c < channels; c++) {
                    uint16_t value = from[c < colors ? c : 3];
                    pixel[2 * c] = (uint8_t)(value >> 8);
                    pixel[2 * c + 1] = (uint8_t)value;
                }
            }
            png_write_row(enc->png, enc->row);
        } else if (channels == 4) {
            png_write_row(enc->png, source);
        } else {
            for (uint32_t x = 0; x < width; x++) {
                uint8_t *pixel = enc->row + channels * (size_t)x;
                const uint8_t *from = source + 4 * (size_t)x;
                memcpy(pixel, from, colors);
                if (has_alpha) pixel[colors] = from[3];
            }
            png_write_row(enc->png, enc->row);
        }
    }
    png_write_end(enc->png, NULL);
    return LC_OK;
}

int lc_png_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int has_alpha, int grey, int depth,
                  int compression_level, const lc_cancel *cancel, uint8_t **out, size_t *out_size, char *message) {
    lc_png_encoder *enc = lc_encoder_state(sizeof *enc, message);
    if (!enc) return LC_ERROR;
    enc->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, enc, on_png_encode_error, on_png_warning);
    if (enc->png) enc->info = png_create_info_struct(enc->png);
    int status = LC_ERROR;
    if (!enc->png || !enc->info) {
        snprintf(enc->message, sizeof enc->message, "out of memory");
    } else {
        status = png_encode_into(enc, rgba, width, height, stride, has_alpha, grey, depth == 16 ? 16 : 8, compression_level, cancel);
    }
    if (enc->png) png_destroy_write_struct(&enc->png, enc->info ? &enc->info : NULL);
    free(enc->row);
    status = lc_output_buffer_finish(&enc->output, status, enc->message, out, out_size, message);
    free(enc);
    return status;
}
