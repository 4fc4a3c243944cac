// A PNG decode path for the common case, beside libpng (png.c calls it after png_read_info).
//
// Why: on the corpus's photographs zlib's inflate and libpng's scalar unfiltering were over
// half of a thumbnail's CPU (Debian's libpng has no SIMD filters). Here the IDAT chunks are
// checked and joined in one pass, inflated in one call by libdeflate, unfiltered with SSE2
// (png_unfilter.c) and expanded straight into the caller's RGBA rows.
//
// Only a well-formed, complete image is decoded here, and one whose inflated rows fit the
// caller's limit (they are held whole beside the output; libpng holds a row): 8-bit,
// non-interlaced grey, grey+alpha,
// RGB, RGBA or palette, every IDAT's CRC right, a zlib stream that ends exactly at the end of
// the IDAT data and yields exactly the rows' bytes, every filter type valid. Anything else
// returns 0 before `out` is touched, and libpng decodes the file from where it stood, so every
// error, warning and partial-data behaviour stays libpng's own.
//
// One difference is left standing: libdeflate decodes some malformed deflate streams that
// zlib rejects. From its source: an empty distance code that a match then uses (read as
// distance 1), a one-codeword code-length code, the unused codeword of a one-codeword code;
// and a differential fuzzer hit, often, fixed-Huffman blocks that zlib stops with "invalid
// literal/length code" (in a fixed block only the reserved symbols 286 and 287 give that) and
// libdeflate decodes (PNGFastPathTests.knownDifferenceAStreamZlibRejectsAndLibdeflateDecodes).
// No encoder writes these; on such a file this path returns pixels where libpng reports an error.
// Telling them apart would mean inflating twice, or with zlib, which is what this path saves.
#include "png_fast_decode.h"

#include "png_unfilter.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

static uint32_t read_be32(const uint8_t *p) {
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static int is_idat(const uint8_t *type) { return memcmp(type, "IDAT", 4) == 0; }

static unsigned channels_of(int color_type) {
    switch (color_type) {
    case 0: return 1;  // grey
    case 2: return 3;  // RGB
    case 3: return 1;  // palette index
    case 4: return 2;  // grey + alpha
    case 6: return 4;  // RGBA
    default: return 0;
    }
}

// The consecutive IDAT chunks from the first one, each bounds- and CRC-checked, as one zlib
// stream: the chunk's own bytes when only one carries data, else a joined copy in *owned.
// Returns 0 when libpng must decide (a chunk cut short, too long, or with a bad CRC).
static int gather_idat(const lc_png_fast_input *input, const uint8_t **stream, size_t *stream_size, uint8_t **owned,
                       size_t *end_offset) {
    const uint8_t *data = input->data;
    size_t size = input->size;
    size_t start = input->idat_data_offset - 8;
    size_t position = start, total = 0, with_data = 0;
    const uint8_t *only = NULL;
    // A chunk is length (4), type (4), data, CRC (4); fewer than 8 bytes left cannot start one,
    // and libpng, with the stream complete, would not read them either.
    while (size - position >= 8 && is_idat(data + position + 4)) {
        uint32_t length = read_be32(data + position);
        if (length > input->max_chunk_length) return 0;
        if (size - position < 12 || length > size - position - 12) return 0;
        const uint8_t *type = data + position + 4;
        if (libdeflate_crc32(0, type, 4 + (size_t)length) != read_be32(type + 4 + length)) return 0;
        if (length > 0) {
            if (total > SIZE_MAX - length) return 0;
            total += length;
            with_data++;
            only = type + 4;
        }
        position += 12 + (size_t)length;
    }
    if (with_data == 0) return 0;
    *end_offset = position;
    *stream_size = total;
    if (with_data == 1) {
        *stream = only;
        return 1;
    }
    uint8_t *joined = malloc(total);
    if (!joined) return 0;
    size_t filled = 0;
    for (size_t at = start; at < position;) {
        uint32_t length = read_be32(data + at);
        memcpy(joined + filled, data + at + 8, length);
        filled += length;
        at += 12 + (size_t)length;
    }
    *owned = joined;
    *stream = joined;
    return 1;
}

// zlib (libpng's inflater) honours the window size in the stream's header and rejects a
// distance beyond it; libdeflate always allows 32 KiB. Both agree whenever the window is
// 32 KiB, or no larger than the whole output (a distance can never reach before the start).
static int window_is_unambiguous(const uint8_t *stream, size_t stream_size, size_t raw_size) {
    if (stream_size < 2) return 0;
    unsigned method = stream[0] & 0x0f, info = stream[0] >> 4;
    if (method != 8 || info > 7) return 0;
    return info == 7 || raw_size <= ((size_t)1 << (info + 8));
}

static void expand_row(const uint8_t *restrict source, uint8_t *restrict destination, uint32_t width, int color_type,
                       const uint8_t *restrict palette) {
    switch (color_type) {
    case 0:
        for (uint32_t x = 0; x < width; x++) {
            uint8_t g = source[x];
            destination[4 * (size_t)x] = g;
            destination[4 * (size_t)x + 1] = g;
            destination[4 * (size_t)x + 2] = g;
            destination[4 * (size_t)x + 3] = 0xff;
        }
        break;
    case 2:
        for (uint32_t x = 0; x < width; x++) {
            destination[4 * (size_t)x] = source[3 * (size_t)x];
            destination[4 * (size_t)x + 1] = source[3 * (size_t)x + 1];
            destination[4 * (size_t)x + 2] = source[3 * (size_t)x + 2];
            destination[4 * (size_t)x + 3] = 0xff;
        }
        break;
    case 3:
        for (uint32_t x = 0; x < width; x++) memcpy(destination + 4 * (size_t)x, palette + 4 * (size_t)source[x], 4);
        break;
    case 4:
        for (uint32_t x = 0; x < width; x++) {
            uint8_t g = source[2 * (size_t)x];
            destination[4 * (size_t)x] = g;
            destination[4 * (size_t)x + 1] = g;
            destination[4 * (size_t)x + 2] = g;
            destination[4 * (size_t)x + 3] = source[2 * (size_t)x + 1];
        }
        break;
    default:
        memcpy(destination, source, 4 * (size_t)width);
        break;
    }
}

int lc_png_fast_decode(const lc_png_fast_input *input, uint8_t *out, size_t stride, size_t *end_offset) {
    unsigned channels = channels_of(input->color_type);
    if (channels == 0 || input->width == 0 || input->height == 0) return 0;
    if (input->color_type == 3 && !input->palette_rgba) return 0;
    if (input->idat_data_offset < 8 || input->idat_data_offset > input->size) return 0;
    if (!is_idat(input->data + input->idat_data_offset - 4)) return 0;

    // Sizes: rows of 1 filter byte + width * channels, and one zero row in front standing for
    // "the row above the first". Overflow of any of them means not ours.
    size_t rowbytes, out_rowbytes, filtered_row, raw_size, buffer_size;
    if (__builtin_mul_overflow((size_t)input->width, (size_t)channels, &rowbytes)) return 0;
    if (__builtin_mul_overflow((size_t)input->width, (size_t)4, &out_rowbytes) || out_rowbytes > stride) return 0;
    if (__builtin_add_overflow(rowbytes, (size_t)1, &filtered_row)) return 0;
    if (__builtin_mul_overflow(filtered_row, (size_t)input->height, &raw_size) || raw_size > input->max_raw_size) return 0;
    if (__builtin_add_overflow(raw_size, filtered_row, &buffer_size)) return 0;

    const uint8_t *stream = NULL;
    size_t stream_size = 0, end = 0;
    uint8_t *joined = NULL;
    if (!gather_idat(input, &stream, &stream_size, &joined, &end)) return 0;
    int decoded = 0;
    uint8_t *buffer = NULL;
    struct libdeflate_decompressor *inflater = NULL;
    if (!window_is_unambiguous(stream, stream_size, raw_size)) goto done;

    buffer = malloc(buffer_size);
    inflater = libdeflate_alloc_decompressor();
    if (!buffer || !inflater) goto done;
    memset(buffer, 0, filtered_row);
    uint8_t *raw = buffer + filtered_row;
    // No actual_out pointer: libdeflate then succeeds only when the stream fills the buffer
    // exactly, and `consumed` shows whether anything follows the stream's end.
    size_t consumed = 0;
    if (libdeflate_zlib_decompress_ex(inflater, stream, stream_size, raw, raw_size, &consumed, NULL) != LIBDEFLATE_SUCCESS ||
        consumed != stream_size) {
        goto done;
    }
    // Every filter byte checked before the first pixel is written, so a bad one leaves `out`
    // untouched for libpng.
    for (uint32_t y = 0; y < input->height; y++) {
        if (raw[(size_t)y * filtered_row] > 4) goto done;
    }
    for (uint32_t y = 0; y < input->height; y++) {
        uint8_t *row = raw + (size_t)y * filtered_row;
        (void)lc_png_unfilter_row(row[0], row + 1, row + 1 - filtered_row, rowbytes, channels);
        expand_row(row + 1, out + (size_t)y * stride, input->width, input->color_type, input->palette_rgba);
    }
    *end_offset = end;
    decoded = 1;

done:
    libdeflate_free_decompressor(inflater);
    free(buffer);
    free(joined);
    return decoded;
}
