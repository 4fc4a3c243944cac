// PNG row unfiltering (PNG spec, section 9) for the fast decode path (png_fast_decode.c).
//
// Why our own: Debian's libpng is built without its SIMD filters, and its scalar Paeth, one
// byte at a time with branches, was 80 % of libpng's share of a photo's decode. For 3- and
// 4-byte pixels the three filters that depend on the pixel to the left (Sub, Average, Paeth)
// run one whole pixel per step in SSE2 registers, as libpng's intel/filter_sse2_intrinsics.c
// and libspng do; everything else is plain C that the compiler vectorises where it can (Up)
// or keeps free of data-dependent branches (Paeth on 1-byte pixels, serial by nature).
#include "png_unfilter.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum { filter_none = 0, filter_sub = 1, filter_up = 2, filter_average = 3, filter_paeth = 4 };

static void unfilter_up(uint8_t *restrict row, const uint8_t *restrict previous, size_t rowbytes) {
    for (size_t i = 0; i < rowbytes; i++) row[i] = (uint8_t)(row[i] + previous[i]);
}

static void unfilter_sub_scalar(uint8_t *row, size_t rowbytes, unsigned bpp) {
    for (size_t i = bpp; i < rowbytes; i++) row[i] = (uint8_t)(row[i] + row[i - bpp]);
}

static void unfilter_average_scalar(uint8_t *restrict row, const uint8_t *restrict previous, size_t rowbytes,
                                    unsigned bpp) {
    size_t first = bpp < rowbytes ? bpp : rowbytes;
    for (size_t i = 0; i < first; i++) row[i] = (uint8_t)(row[i] + (previous[i] >> 1));
    for (size_t i = first; i < rowbytes; i++) row[i] = (uint8_t)(row[i] + ((row[i - bpp] + previous[i]) >> 1));
}

// The spec's predictor with its tie order (left, then above, then upper left), selected with
// masks rather than branches: which neighbour wins is data, and mispredicted branches on it
// were what made libpng's Paeth slow.
static inline int paeth_predictor(int a, int b, int c) {
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    int take_c = -(pb > pc);
    int b_or_c = (b & ~take_c) | (c & take_c);
    int not_a = -((pa > pb) | (pa > pc));
    return (a & ~not_a) | (b_or_c & not_a);
}

static void unfilter_paeth_scalar(uint8_t *restrict row, const uint8_t *restrict previous, size_t rowbytes,
                                  unsigned bpp) {
    // With no pixel to the left, a = c = 0 and the predictor is always b.
    size_t first = bpp < rowbytes ? bpp : rowbytes;
    for (size_t i = 0; i < first; i++) row[i] = (uint8_t)(row[i] + previous[i]);
    for (size_t i = first; i < rowbytes; i++) {
        row[i] = (uint8_t)(row[i] + paeth_predictor(row[i - bpp], previous[i], previous[i - bpp]));
    }
}

// One-byte pixels (grey, palette) are the serial case: each byte needs the one just decoded.
// Keeping it in a register, not reloading it from the row just stored, takes the store-to-load
// round trip off that chain.
static void unfilter_sub_1(uint8_t *row, size_t rowbytes) {
    uint8_t left = 0;
    for (size_t i = 0; i < rowbytes; i++) row[i] = left = (uint8_t)(row[i] + left);
}

static void unfilter_average_1(uint8_t *restrict row, const uint8_t *restrict previous, size_t rowbytes) {
    unsigned left = 0;
    for (size_t i = 0; i < rowbytes; i++) {
        left = (uint8_t)(row[i] + ((left + previous[i]) >> 1));
        row[i] = (uint8_t)left;
    }
}

static void unfilter_paeth_1(uint8_t *restrict row, const uint8_t *restrict previous, size_t rowbytes) {
    int left = 0, upper_left = 0;
    for (size_t i = 0; i < rowbytes; i++) {
        int above = previous[i];
        left = (uint8_t)(row[i] + paeth_predictor(left, above, upper_left));
        row[i] = (uint8_t)left;
        upper_left = above;
    }
}

#if defined(__SSE2__)
// One pixel (3 or 4 bytes) in the low lanes of a register; memcpy keeps the loads and stores
// within the row (no reading past a 3-byte pixel) and free of alignment assumptions.
static inline __m128i load_pixel(const uint8_t *p, unsigned bpp) {
    uint32_t v = 0;
    memcpy(&v, p, bpp);
    return _mm_cvtsi32_si128((int)v);
}

static inline void store_pixel(uint8_t *p, __m128i v, unsigned bpp) {
    uint32_t x = (uint32_t)_mm_cvtsi128_si32(v);
    memcpy(p, &x, bpp);
}

static inline __attribute__((always_inline)) void unfilter_sub_sse2(uint8_t *row, size_t rowbytes, unsigned bpp) {
    __m128i left = _mm_setzero_si128();
    for (size_t i = 0; i + bpp <= rowbytes; i += bpp) {
        left = _mm_add_epi8(load_pixel(row + i, bpp), left);
        store_pixel(row + i, left, bpp);
    }
}

static inline __attribute__((always_inline)) void unfilter_average_sse2(uint8_t *restrict row,
                                                                          const uint8_t *restrict previous,
                                                                          size_t rowbytes, unsigned bpp) {
    // _mm_avg_epu8 rounds up; PNG's average rounds down, which the low bit of a ^ b corrects.
    const __m128i one = _mm_set1_epi8(1);
    __m128i left = _mm_setzero_si128();
    for (size_t i = 0; i + bpp <= rowbytes; i += bpp) {
        __m128i above = load_pixel(previous + i, bpp);
        __m128i average = _mm_sub_epi8(_mm_avg_epu8(left, above), _mm_and_si128(_mm_xor_si128(left, above), one));
        left = _mm_add_epi8(load_pixel(row + i, bpp), average);
        store_pixel(row + i, left, bpp);
    }
}

static inline __m128i select_si128(__m128i mask, __m128i if_set, __m128i otherwise) {
    return _mm_or_si128(_mm_and_si128(mask, if_set), _mm_andnot_si128(mask, otherwise));
}

static inline __attribute__((always_inline)) void unfilter_paeth_sse2(uint8_t *restrict row,
                                                                        const uint8_t *restrict previous,
                                                                        size_t rowbytes, unsigned bpp) {
    // In 16-bit lanes (a + b - 2c needs the range). Only a, the pixel just decoded, is on the
    // serial chain, so the work is arranged to keep that chain short: |x| is max(x, -x) with
    // both signs computed side by side (SSE2 has no 16-bit abs), what depends only on b and c
    // is done off the chain, and the sum stays widened (masked to a byte) for the next pixel.
    const __m128i zero = _mm_setzero_si128();
    const __m128i low_byte = _mm_set1_epi16(0xff);
    __m128i a = zero, c = zero;
    for (size_t i = 0; i + bpp <= rowbytes; i += bpp) {
        __m128i b = _mm_unpacklo_epi8(load_pixel(previous + i, bpp), zero);
        __m128i x = _mm_unpacklo_epi8(load_pixel(row + i, bpp), zero);
        __m128i b_minus_c = _mm_sub_epi16(b, c), c_minus_b = _mm_sub_epi16(c, b);
        __m128i pa = _mm_max_epi16(b_minus_c, c_minus_b);
        __m128i a_minus_c = _mm_sub_epi16(a, c), c_minus_a = _mm_sub_epi16(c, a);
        __m128i pb = _mm_max_epi16(a_minus_c, c_minus_a);
        __m128i pc = _mm_max_epi16(_mm_add_epi16(b_minus_c, a_minus_c), _mm_add_epi16(c_minus_b, c_minus_a));
        // The spec's order: a unless pa > pb or pa > pc; then b unless pb > pc; then c.
        __m128i not_a = _mm_cmpgt_epi16(pa, _mm_min_epi16(pb, pc));
        __m128i b_or_c = select_si128(_mm_cmpgt_epi16(pb, pc), c, b);
        __m128i predicted = select_si128(not_a, b_or_c, a);
        a = _mm_and_si128(_mm_add_epi16(x, predicted), low_byte);
        store_pixel(row + i, _mm_packus_epi16(a, a), bpp);
        c = b;
    }
}
#endif

int lc_png_unfilter_row(uint8_t filter, uint8_t *row, const uint8_t *previous, size_t rowbytes, unsigned bpp) {
    switch (filter) {
    case filter_none:
        return 1;
    case filter_up:
        unfilter_up(row, previous, rowbytes);
        return 1;
    case filter_sub:
#if defined(__SSE2__)
        if (bpp == 4) { unfilter_sub_sse2(row, rowbytes, 4); return 1; }
        if (bpp == 3) { unfilter_sub_sse2(row, rowbytes, 3); return 1; }
#endif
        if (bpp == 1) { unfilter_sub_1(row, rowbytes); return 1; }
        unfilter_sub_scalar(row, rowbytes, bpp);
        return 1;
    case filter_average:
#if defined(__SSE2__)
        if (bpp == 4) { unfilter_average_sse2(row, previous, rowbytes, 4); return 1; }
        if (bpp == 3) { unfilter_average_sse2(row, previous, rowbytes, 3); return 1; }
#endif
        if (bpp == 1) { unfilter_average_1(row, previous, rowbytes); return 1; }
        unfilter_average_scalar(row, previous, rowbytes, bpp);
        return 1;
    case filter_paeth:
#if defined(__SSE2__)
        if (bpp == 4) { unfilter_paeth_sse2(row, previous, rowbytes, 4); return 1; }
        if (bpp == 3) { unfilter_paeth_sse2(row, previous, rowbytes, 3); return 1; }
#endif
        if (bpp == 1) { unfilter_paeth_1(row, previous, rowbytes); return 1; }
        unfilter_paeth_scalar(row, previous, rowbytes, bpp);
        return 1;
    default:
        return 0;
    }
}
