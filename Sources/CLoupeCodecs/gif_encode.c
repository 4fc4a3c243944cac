// GIF encoding: libimagequant chooses each frame's palette (and dithers), giflib writes the
// file (see CLoupeCodecs.h).
//
// Every frame is a full canvas with its own colour table, so a frame never depends on the one
// before it: with transparency, each frame is disposed to the background before the next one
// draws, as a full-canvas animation needs (otherwise the previous frame shows through).
#include "CLoupeCodecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>
#include <libimagequant.h>

typedef struct {
    uint8_t *data;
    size_t size;
    size_t capacity;
    int failed;
} lc_gif_writer;

static int write_to_memory(GifFileType *gif, const GifByteType *bytes, int length) {
    lc_gif_writer *writer = (lc_gif_writer *)gif->UserData;
    if (length <= 0) return 0;
    if (writer->size + (size_t)length > writer->capacity) {
        size_t capacity = writer->capacity ? writer->capacity : 4096;
        while (capacity < writer->size + (size_t)length) capacity *= 2;
        uint8_t *grown = realloc(writer->data, capacity);
        if (!grown) {
            writer->failed = 1;
            return 0;
        }
        writer->data = grown;
        writer->capacity = capacity;
    }
    memcpy(writer->data + writer->size, bytes, (size_t)length);
    writer->size += (size_t)length;
    return length;
}

static void gif_message(char *message, const char *what, int code) {
    const char *text = GifErrorString(code);
    snprintf(message, LC_MESSAGE_CAPACITY, "%s: %s", what, text ? text : "unknown giflib error");
}

// Quantizes one frame to at most 256 colours into `indices` and a giflib colour map; the
// transparent entry's index goes to `*transparent` (-1 without one). GIF has one-bit
// transparency, so alpha is cut at half before quantizing: every transparent pixel becomes the
// same colour, which gets one palette entry.
static int quantize_frame(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int speed, uint8_t *scratch,
                          uint8_t *indices, ColorMapObject **map, int *transparent, char *message) {
    for (uint32_t y = 0; y < height; y++) {
        const uint8_t *in = rgba + (size_t)y * stride;
        uint8_t *out = scratch + (size_t)y * width * 4;
        for (uint32_t x = 0; x < width; x++, in += 4, out += 4) {
            if (in[3] < 128) {
                out[0] = out[1] = out[2] = out[3] = 0;
            } else {
                out[0] = in[0]; out[1] = in[1]; out[2] = in[2]; out[3] = 255;
            }
        }
    }
    int status = LC_ERROR;
    liq_attr *attr = liq_attr_create();
    liq_image *image = NULL;
    liq_result *result = NULL;
    liq_error error = LIQ_OK;
    const liq_palette *palette = NULL;
    if (!attr) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        return LC_ERROR;
    }
    liq_set_speed(attr, speed);
    image = liq_image_create_rgba(attr, scratch, (int)width, (int)height, 0);
    if (!image) {
        snprintf(message, LC_MESSAGE_CAPACITY, "libimagequant refused a %ux%u image", width, height);
        goto done;
    }
    error = liq_image_quantize(image, attr, &result);
    if (error != LIQ_OK || !result) {
        snprintf(message, LC_MESSAGE_CAPACITY, "libimagequant quantization failed (error %d)", (int)error);
        goto done;
    }
    liq_set_dithering_level(result, 1.0f);
    error = liq_write_remapped_image(result, image, indices, (size_t)width * height);
    if (error != LIQ_OK) {
        snprintf(message, LC_MESSAGE_CAPACITY, "libimagequant remapping failed (error %d)", (int)error);
        goto done;
    }
    palette = liq_get_palette(result);
    int count = palette->count > 0 ? (int)palette->count : 1;
    // giflib's colour tables hold a power of two entries; the unused ones stay black.
    *map = GifMakeMapObject(1 << GifBitSize(count), NULL);
    if (!*map) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        goto done;
    }
    *transparent = -1;
    for (int i = 0; i < (int)palette->count; i++) {
        (*map)->Colors[i].Red = palette->entries[i].r;
        (*map)->Colors[i].Green = palette->entries[i].g;
        (*map)->Colors[i].Blue = palette->entries[i].b;
        if (palette->entries[i].a < 128 && *transparent < 0) *transparent = i;
    }
    status = LC_OK;
done:
    if (result) liq_result_destroy(result);
    if (image) liq_image_destroy(image);
    liq_attr_destroy(attr);
    return status;
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
                  size_t stride, int loop_count, int speed, uint8_t **out, size_t *out_size, char *message) {
    if (count == 0 || width == 0 || height == 0 || width > 65535 || height > 65535) {
        snprintf(message, LC_MESSAGE_CAPACITY, "GIF cannot hold %u frames of %ux%u", count, width, height);
        return LC_ERROR;
    }
    size_t pixels = (size_t)width * height;
    uint8_t *scratch = malloc(pixels * 4);
    uint8_t *indices = malloc(pixels);
    lc_gif_writer writer = {NULL, 0, 0, 0};
    int error = 0;
    GifFileType *gif = NULL;
    int status = LC_ERROR;
    if (!scratch || !indices) {
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
    for (uint32_t i = 0; i < count; i++) {
        ColorMapObject *map = NULL;
        int transparent = -1;
        if (quantize_frame(frames[i], width, height, stride, speed, scratch, indices, &map, &transparent, message) != LC_OK) goto done;
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
    if (status == LC_OK && writer.failed) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        status = LC_ERROR;
    }
    free(scratch);
    free(indices);
    if (status != LC_OK) {
        free(writer.data);
        return LC_ERROR;
    }
    *out = writer.data;
    *out_size = writer.size;
    return LC_OK;
}
