// libwebp decode/encode; the demuxer reads the container and the animation decoder
// composites animated frames (see CLoupeCodecs.h). libwebp reports errors by return value,
// so no setjmp is needed here; this file exists so the Swift side sees one uniform C API.
#include "CLoupeCodecs.h"
#include "encoder_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>

struct lc_webp {
    WebPData data;
    WebPDemuxer *demux;
    WebPAnimDecoder *anim;
    uint32_t width;
    uint32_t height;
};

static const char *vp8_status_text(VP8StatusCode status) {
    switch (status) {
    case VP8_STATUS_OK: return "ok";
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "bitstream error";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_SUSPENDED: return "suspended";
    case VP8_STATUS_USER_ABORT: return "user abort";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "not enough data (truncated file)";
    }
    return "unknown error";
}

lc_webp *lc_webp_create(const uint8_t *data, size_t size, lc_webp_info *info, char *message) {
    lc_webp *self = calloc(1, sizeof *self);
    if (!self) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        return NULL;
    }
    self->data.bytes = data;
    self->data.size = size;
    WebPDemuxState state;
    self->demux = WebPDemuxPartial(&self->data, &state);
    if (!self->demux || state != WEBP_DEMUX_DONE) {
        snprintf(message, LC_MESSAGE_CAPACITY, "%s",
                 state == WEBP_DEMUX_PARSE_ERROR || !self->demux ? "invalid WebP container" : "truncated WebP container");
        lc_webp_destroy(self);
        return NULL;
    }
    memset(info, 0, sizeof *info);
    uint32_t flags = WebPDemuxGetI(self->demux, WEBP_FF_FORMAT_FLAGS);
    self->width = WebPDemuxGetI(self->demux, WEBP_FF_CANVAS_WIDTH);
    self->height = WebPDemuxGetI(self->demux, WEBP_FF_CANVAS_HEIGHT);
    info->width = self->width;
    info->height = self->height;
    info->has_animation = (flags & ANIMATION_FLAG) != 0;
    info->frame_count = WebPDemuxGetI(self->demux, WEBP_FF_FRAME_COUNT);
    info->loop_count = WebPDemuxGetI(self->demux, WEBP_FF_LOOP_COUNT);
    info->has_alpha = (flags & ALPHA_FLAG) != 0;
    if (!info->has_animation) {
        // Simple (non-VP8X) files carry no flags: ask the bitstream whether it has alpha.
        WebPBitstreamFeatures features;
        if (WebPGetFeatures(data, size, &features) == VP8_STATUS_OK) info->has_alpha = features.has_alpha;
    }
    WebPChunkIterator chunk;
    if ((flags & EXIF_FLAG) && WebPDemuxGetChunk(self->demux, "EXIF", 1, &chunk)) {
        info->exif = chunk.chunk.bytes;
        info->exif_size = chunk.chunk.size;
        WebPDemuxReleaseChunkIterator(&chunk);
    }
    if ((flags & ICCP_FLAG) && WebPDemuxGetChunk(self->demux, "ICCP", 1, &chunk)) {
        info->icc = chunk.chunk.bytes;
        info->icc_size = chunk.chunk.size;
        WebPDemuxReleaseChunkIterator(&chunk);
    }
    return self;
}

int lc_webp_decode_still(lc_webp *self, uint32_t width, uint32_t height, uint8_t *out, size_t stride,
                         char *message) {
    WebPIterator frame;
    if (!WebPDemuxGetFrame(self->demux, 1, &frame)) {
        snprintf(message, LC_MESSAGE_CAPACITY, "WebP file has no image");
        return LC_ERROR;
    }
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        WebPDemuxReleaseIterator(&frame);
        snprintf(message, LC_MESSAGE_CAPACITY, "libwebp version mismatch");
        return LC_ERROR;
    }
    // A still image's single frame covers the canvas; scaling happens inside the decoder,
    // which is cheaper than decoding at full size and resizing afterwards.
    if (width != (uint32_t)frame.width || height != (uint32_t)frame.height) {
        config.options.use_scaling = 1;
        config.options.scaled_width = (int)width;
        config.options.scaled_height = (int)height;
    }
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = out;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = stride * height;
    VP8StatusCode status = WebPDecode(frame.fragment.bytes, frame.fragment.size, &config);
    WebPFreeDecBuffer(&config.output);  // no-op for external memory, kept for symmetry
    WebPDemuxReleaseIterator(&frame);
    if (status != VP8_STATUS_OK) {
        snprintf(message, LC_MESSAGE_CAPACITY, "WebP decode failed: %s", vp8_status_text(status));
        return LC_ERROR;
    }
    return LC_OK;
}

int lc_webp_first_frame_covers_canvas(const lc_webp *self) {
    WebPIterator frame;
    if (!WebPDemuxGetFrame(self->demux, 1, &frame)) return 0;
    int covers = frame.x_offset == 0 && frame.y_offset == 0 && (uint32_t)frame.width == self->width
                 && (uint32_t)frame.height == self->height && frame.complete;
    WebPDemuxReleaseIterator(&frame);
    return covers;
}

int lc_webp_next_frame(lc_webp *self, uint8_t *out, size_t stride, int *timestamp_ms, char *message) {
    if (!self->anim) {
        WebPAnimDecoderOptions options;
        if (!WebPAnimDecoderOptionsInit(&options)) {
            snprintf(message, LC_MESSAGE_CAPACITY, "libwebp version mismatch");
            return LC_ERROR;
        }
        options.color_mode = MODE_RGBA;
        options.use_threads = 0;
        self->anim = WebPAnimDecoderNew(&self->data, &options);
        if (!self->anim) {
            snprintf(message, LC_MESSAGE_CAPACITY, "invalid animated WebP");
            return LC_ERROR;
        }
    }
    if (!WebPAnimDecoderHasMoreFrames(self->anim)) return 0;
    uint8_t *canvas = NULL;
    if (!WebPAnimDecoderGetNext(self->anim, &canvas, timestamp_ms) || !canvas) {
        snprintf(message, LC_MESSAGE_CAPACITY, "animated WebP frame failed to decode");
        return LC_ERROR;
    }
    size_t row = (size_t)self->width * 4;
    for (uint32_t y = 0; y < self->height; y++) memcpy(out + (size_t)y * stride, canvas + (size_t)y * row, row);
    return 1;
}

void lc_webp_destroy(lc_webp *self) {
    if (!self) return;
    WebPAnimDecoderDelete(self->anim);
    WebPDemuxDelete(self->demux);
    free(self);
}

static int write_to_buffer(const uint8_t *data, size_t size, const WebPPicture *picture) {
    return WebPMemoryWrite(data, size, picture);
}

// libwebp's progress hook: returning 0 aborts the encode (VP8_ENC_ERROR_USER_ABORT).
static int continue_unless_cancelled(int percent, const WebPPicture *picture) {
    (void)percent;
    const lc_cancel *cancel = (const lc_cancel *)picture->user_data;
    return !(cancel && cancel->is_cancelled && cancel->is_cancelled(cancel->context));
}

static void watch_cancel(WebPPicture *picture, const lc_cancel *cancel) {
    if (!cancel) return;
    picture->user_data = (void *)cancel;
    picture->progress_hook = continue_unless_cancelled;
}

int lc_webp_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int lossless,
                   float quality, const lc_cancel *cancel, uint8_t **out, size_t *out_size, char *message) {
    WebPConfig config;
    WebPPicture picture;
    if (!WebPConfigInit(&config) || !WebPPictureInit(&picture)) {
        snprintf(message, LC_MESSAGE_CAPACITY, "libwebp version mismatch");
        return LC_ERROR;
    }
    config.lossless = lossless;
    config.quality = quality;
    // Lossless keeps exact RGB under fully transparent pixels, as a round trip should.
    config.exact = lossless;
    picture.use_argb = lossless;
    picture.width = (int)width;
    picture.height = (int)height;
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = write_to_buffer;
    picture.custom_ptr = &writer;
    watch_cancel(&picture, cancel);
    int ok = WebPPictureImportRGBA(&picture, rgba, (int)stride);
    if (ok) ok = WebPEncode(&config, &picture);
    if (!ok) {
        int cancelled = picture.error_code == VP8_ENC_ERROR_USER_ABORT && lc_encode_cancelled(cancel, message);
        if (!cancelled) snprintf(message, LC_MESSAGE_CAPACITY, "WebP encode failed (error %d)", (int)picture.error_code);
        WebPPictureFree(&picture);
        WebPMemoryWriterClear(&writer);
        return cancelled ? LC_CANCELLED : LC_ERROR;
    }
    WebPPictureFree(&picture);
    *out = writer.mem;  // allocated with WebPSafeMalloc, i.e. malloc: lc_free releases it
    *out_size = writer.size;
    return LC_OK;
}
