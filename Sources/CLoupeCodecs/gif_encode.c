// GIF encoding: libimagequant chooses the palettes (and dithers), giflib writes the file (see
// CLoupeCodecs.h).
//
// Every frame is a full canvas with a colour table of its own (a kept palette is written again),
// so a frame never depends on the one before it: with transparency, each frame is disposed to the background before the next one
// draws, as a full-canvas animation needs (otherwise the previous frame shows through).
#include "CLoupeCodecs.h"

#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>
#include <libimagequant.h>

#include "encoder_setup.h"

// giflib's output function: appends to the encode's buffer; a failure (out of memory) is
// remembered and reported to giflib as a short write.
typedef struct {
    lc_output_buffer output;
    const char *failure;
} lc_gif_writer;

static int write_to_memory(GifFileType *gif, const GifByteType *bytes, int length) {
    lc_gif_writer *writer = (lc_gif_writer *)gif->UserData;
    if (length <= 0) return 0;
    const char *failure = lc_output_buffer_reserve(&writer->output, (size_t)length);
    if (failure) {
        writer->failure = failure;
        return 0;
    }
    memcpy(writer->output.bytes + writer->output.size, bytes, (size_t)length);
    writer->output.size += (size_t)length;
    return length;
}

static void gif_message(char *message, const char *what, int code) {
    const char *text = GifErrorString(code);
    snprintf(message, LC_MESSAGE_CAPACITY, "%s: %s", what, text ? text : "unknown giflib error");
}

// The palette frames are written with: quantizing is most of the cost of writing a GIF and
// remapping to a palette a fraction, and an animation's frames mostly share their colours, so a
// frame keeps the palette of the last frame that was quantized when that palette fits it nearly
// as well as it fits its own frame — its error at most LC_GIF_PALETTE_REUSE_FACTOR times that
// frame's, or under LC_GIF_PALETTE_REUSE_FLOOR (a mean square error per channel that
// dithering hides) — and gets a palette of its own otherwise, always when it has transparency
// the kept palette lacks. The error is the nearest palette colour's, on every
// LC_GIF_PALETTE_SAMPLE_STEP-th pixel: a fraction of a remap's cost, so trying the kept palette
// on a frame that needs its own costs little.
#define LC_GIF_PALETTE_REUSE_FACTOR 1.5
#define LC_GIF_PALETTE_REUSE_FLOOR 5.0
#define LC_GIF_PALETTE_SAMPLE_STEP 17

typedef struct {
    liq_attr *attr;
    liq_result *result;
    // The kept palette's remapping error on the frame it was quantized for.
    double own_error;
    // The kept palette's transparent entry, -1 without one.
    int transparent;
} lc_gif_palette;

// Copies one frame into `scratch` with alpha cut at half (GIF has one-bit transparency: every
// transparent pixel becomes the same colour, which gets one palette entry); returns whether any
// pixel is transparent.
static int cut_alpha(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, uint8_t *scratch) {
    int transparent = 0;
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *in = rgba + (size_t)y * stride;
        uint8_t *out = scratch + (size_t)y * width * 4;
        for (uint32_t x = 0; x < width; x++, in += 4, out += 4) {
            if (in[3] < 128) {
                out[0] = out[1] = out[2] = out[3] = 0;
                transparent = 1;
            } else {
                out[0] = in[0]; out[1] = in[1]; out[2] = in[2]; out[3] = 255;
            }
        }
    }
    return transparent;
}

// The mean square difference per channel between the frame's opaque pixels (a sample of them)
// and their nearest opaque palette colours; 0 for a frame with none. Stops early, returning
// more than `limit`, once the error is sure to exceed it.
static double palette_error(const liq_palette *entries, const uint8_t *scratch, size_t pixels, double limit) {
    uint64_t sum = 0;
    size_t sampled = 0;
    // The sum past which the mean exceeds `limit` even if every sample is opaque.
    const double bound = limit * 3.0 * (double)(pixels / LC_GIF_PALETTE_SAMPLE_STEP + 1);
    for (size_t i = 0; i < pixels && (double)sum <= bound; i += LC_GIF_PALETTE_SAMPLE_STEP) {
        const uint8_t *pixel = scratch + i * 4;
        if (pixel[3] == 0) continue;
        uint32_t nearest = UINT32_MAX;
        for (unsigned int k = 0; k < entries->count; k++) {
            const liq_color color = entries->entries[k];
            if (color.a < 128) continue;
            int dr = (int)pixel[0] - color.r, dg = (int)pixel[1] - color.g, db = (int)pixel[2] - color.b;
            uint32_t distance = (uint32_t)(dr * dr + dg * dg + db * db);
            if (distance < nearest) nearest = distance;
        }
        // A palette without an opaque colour cannot show the pixel at all.
        sum += nearest == UINT32_MAX ? 3u * 255u * 255u : nearest;
        sampled++;
    }
    if ((double)sum > bound) return limit + 1;
    return sampled ? (double)sum / (3.0 * (double)sampled) : 0;
}

// Remaps the frame in `scratch` into `indices` with the kept palette when it serves (see
// lc_gif_palette), else with a palette quantized for the frame, which is kept from then on;
// writes the palette used as a giflib colour map and its transparent index.
static int remap_frame(lc_gif_palette *palette, const uint8_t *scratch, int has_transparency, uint32_t width, uint32_t height,
                       int speed, uint8_t *indices, ColorMapObject **map, int *transparent, char *message) {
    int status = LC_ERROR;
    liq_result *fresh = NULL;
    liq_error error = LIQ_OK;
    liq_image *image = liq_image_create_rgba(palette->attr, scratch, (int)width, (int)height, 0);
    if (!image) {
        snprintf(message, LC_MESSAGE_CAPACITY, "libimagequant refused a %ux%u image", width, height);
        return LC_ERROR;
    }
    int kept = 0;
    if (palette->result && (!has_transparency || palette->transparent >= 0)) {
        double limit = palette->own_error * LC_GIF_PALETTE_REUSE_FACTOR;
        if (limit < LC_GIF_PALETTE_REUSE_FLOOR) limit = LC_GIF_PALETTE_REUSE_FLOOR;
        kept = palette_error(liq_get_palette(palette->result), scratch, (size_t)width * height, limit) <= limit;
    }
    if (kept) {
        error = liq_write_remapped_image(palette->result, image, indices, (size_t)width * height);
        if (error != LIQ_OK) {
            snprintf(message, LC_MESSAGE_CAPACITY, "libimagequant remapping failed (error %d)", (int)error);
            goto done;
        }
    } else {
        liq_set_speed(palette->attr, speed);
        error = liq_image_quantize(image, palette->attr, &fresh);
        if (error != LIQ_OK || !fresh) {
            snprintf(message, LC_MESSAGE_CAPACITY, "libimagequant quantization failed (error %d)", (int)error);
            goto done;
        }
        liq_set_dithering_level(fresh, 1.0f);
        error = liq_write_remapped_image(fresh, image, indices, (size_t)width * height);
        if (error != LIQ_OK) {
            snprintf(message, LC_MESSAGE_CAPACITY, "libimagequant remapping failed (error %d)", (int)error);
            goto done;
        }
        if (palette->result) liq_result_destroy(palette->result);
        palette->result = fresh;
        fresh = NULL;
        palette->own_error = palette_error(liq_get_palette(palette->result), scratch, (size_t)width * height, HUGE_VAL);
        palette->transparent = -1;
        const liq_palette *entries = liq_get_palette(palette->result);
        for (int i = 0; i < (int)entries->count; i++) {
            if (entries->entries[i].a < 128) {
                palette->transparent = i;
                break;
            }
        }
    }
    const liq_palette *entries = liq_get_palette(palette->result);
    int count = entries->count > 0 ? (int)entries->count : 1;
    // giflib's colour tables hold a power of two entries; the unused ones stay black.
    *map = GifMakeMapObject(1 << GifBitSize(count), NULL);
    if (!*map) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        goto done;
    }
    for (int i = 0; i < (int)entries->count; i++) {
        (*map)->Colors[i].Red = entries->entries[i].r;
        (*map)->Colors[i].Green = entries->entries[i].g;
        (*map)->Colors[i].Blue = entries->entries[i].b;
    }
    *transparent = palette->transparent;
    status = LC_OK;
done:
    if (fresh) liq_result_destroy(fresh);
    liq_image_destroy(image);
    return status;
}

// libimagequant's progress callback, during each palette's search: returning 0 aborts it
// (LIQ_ABORTED), and the frame loop then sees the cancellation.
static int continue_unless_cancelled(float progress_percent, void *user_info) {
    (void)progress_percent;
    const lc_cancel *cancel = (const lc_cancel *)user_info;
    return !cancel->is_cancelled(cancel->context);
}

static int put_loop_count(GifFileType *gif, int loop_count) {
    static const GifByteType application[11] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
    GifByteType loop[3] = {1, (GifByteType)(loop_count & 0xFF), (GifByteType)((loop_count >> 8) & 0xFF)};
    if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR) return GIF_ERROR;
    if (EGifPutExtensionBlock(gif, sizeof application, application) == GIF_ERROR) return GIF_ERROR;
    if (EGifPutExtensionBlock(gif, sizeof loop, loop) == GIF_ERROR) return GIF_ERROR;
    return EGifPutExtensionTrailer(gif);
}

int lc_gif_encode(const uint8_t *const *frames, const int32_t *delays_cs, uint32_t count, uint32_t width, uint32_t height,
                  size_t stride, int loop_count, int speed, const lc_cancel *cancel, uint8_t **out, size_t *out_size,
                  char *message) {
    if (count == 0 || width == 0 || height == 0 || width > 65535 || height > 65535) {
        snprintf(message, LC_MESSAGE_CAPACITY, "GIF cannot hold %u frames of %ux%u", count, width, height);
        return LC_ERROR;
    }
    size_t pixels = (size_t)width * height;
    uint8_t *scratch = malloc(pixels * 4);
    uint8_t *indices = malloc(pixels);
    lc_gif_palette palette = {liq_attr_create(), NULL, 0, -1};
    lc_gif_writer writer = {{NULL, 0, 0}, NULL};
    int error = 0;
    GifFileType *gif = NULL;
    int status = LC_ERROR;
    if (!scratch || !indices || !palette.attr) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        goto done;
    }
    gif = EGifOpen(&writer, write_to_memory, &error);
    if (!gif) {
        gif_message(message, "GIF writer", error);
        goto done;
    }
    EGifSetGifVersion(gif, true);
    if (EGifPutScreenDesc(gif, (int)width, (int)height, 8, 0, NULL) == GIF_ERROR) {
        gif_message(message, "GIF screen", gif->Error);
        goto done;
    }
    if (count > 1 && put_loop_count(gif, loop_count < 0 ? 0 : loop_count > 65535 ? 65535 : loop_count) == GIF_ERROR) {
        gif_message(message, "GIF loop count", gif->Error);
        goto done;
    }
    if (cancel) liq_attr_set_progress_callback(palette.attr, continue_unless_cancelled, (void *)cancel);
    for (uint32_t i = 0; i < count; i++) {
        if (lc_encode_cancelled(cancel, message)) {
            status = LC_CANCELLED;
            goto done;
        }
        ColorMapObject *map = NULL;
        int transparent = -1;
        int has_transparency = cut_alpha(frames[i], width, height, stride, scratch);
        if (remap_frame(&palette, scratch, has_transparency, width, height, speed, indices, &map, &transparent, message) != LC_OK) {
            if (lc_encode_cancelled(cancel, message)) status = LC_CANCELLED;
            goto done;
        }
        GraphicsControlBlock gcb = {
            .DisposalMode = transparent >= 0 ? DISPOSE_BACKGROUND : DISPOSE_DO_NOT,
            .UserInputFlag = false,
            .DelayTime = delays_cs ? (delays_cs[i] < 0 ? 0 : delays_cs[i] > 65535 ? 65535 : delays_cs[i]) : 0,
            .TransparentColor = transparent >= 0 ? transparent : NO_TRANSPARENT_COLOR,
        };
        GifByteType extension[4];
        size_t length = EGifGCBToExtension(&gcb, extension);
        int ok = EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, (int)length, extension) != GIF_ERROR
                 && EGifPutImageDesc(gif, 0, 0, (int)width, (int)height, false, map) != GIF_ERROR;
        GifFreeMapObject(map);
        for (uint32_t y = 0; ok && y < height; y++) ok = EGifPutLine(gif, indices + (size_t)y * width, (int)width) != GIF_ERROR;
        if (!ok) {
            gif_message(message, "GIF frame", gif->Error);
            goto done;
        }
    }
    status = LC_OK;
done:
    if (gif) {
        // Closing writes the trailer and frees giflib's state, also after a failure.
        int close_error = 0;
        if (EGifCloseFile(gif, &close_error) == GIF_ERROR && status == LC_OK) {
            gif_message(message, "GIF trailer", close_error);
            status = LC_ERROR;
        }
    }
    if (status == LC_OK && writer.failure) {
        snprintf(message, LC_MESSAGE_CAPACITY, "%s", writer.failure);
        status = LC_ERROR;
    }
    if (palette.result) liq_result_destroy(palette.result);
    if (palette.attr) liq_attr_destroy(palette.attr);
    free(scratch);
    free(indices);
    if (status != LC_OK) {
        free(writer.output.bytes);
        return status;
    }
    *out = writer.output.bytes;
    *out_size = writer.output.size;
    return LC_OK;
}
