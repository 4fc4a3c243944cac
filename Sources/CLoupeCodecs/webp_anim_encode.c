// Animated WebP encoding with libwebpmux's WebPAnimEncoder (see CLoupeCodecs.h).
#include "CLoupeCodecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/encode.h>
#include <webp/mux.h>

#include "encoder_setup.h"

int lc_webp_encode_animation(const uint8_t *const *frames, const int32_t *durations_ms, uint32_t count, uint32_t width,
                             uint32_t height, size_t stride, int lossless, float quality, int loop_count,
                             const lc_cancel *cancel, uint8_t **out, size_t *out_size, char *message) {
    if (count == 0 || width == 0 || height == 0 || width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION) {
        snprintf(message, LC_MESSAGE_CAPACITY, "WebP cannot hold %u frames of %ux%u", count, width, height);
        return LC_ERROR;
    }
    WebPAnimEncoderOptions options;
    WebPConfig config;
    if (!WebPAnimEncoderOptionsInit(&options) || !WebPConfigInit(&config)) {
        snprintf(message, LC_MESSAGE_CAPACITY, "libwebp version mismatch");
        return LC_ERROR;
    }
    options.anim_params.loop_count = loop_count < 0 ? 0 : loop_count > 65535 ? 65535 : loop_count;
    config.lossless = lossless;
    config.quality = quality;
    WebPAnimEncoder *encoder = WebPAnimEncoderNew((int)width, (int)height, &options);
    if (!encoder) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        return LC_ERROR;
    }
    int status = LC_ERROR;
    int timestamp = 0;
    WebPData assembled;
    WebPDataInit(&assembled);
    for (uint32_t i = 0; i < count; i++) {
        // Between frames; the animation encoder encodes each frame's candidates with its own
        // pictures, which do not carry a progress hook.
        if (lc_encode_cancelled(cancel, message)) {
            status = LC_CANCELLED;
            goto done;
        }
        WebPPicture picture;
        if (!WebPPictureInit(&picture)) {
            snprintf(message, LC_MESSAGE_CAPACITY, "libwebp version mismatch");
            goto done;
        }
        picture.use_argb = 1;  // the animation encoder compares frames in ARGB
        picture.width = (int)width;
        picture.height = (int)height;
        int ok = WebPPictureImportRGBA(&picture, frames[i], (int)stride) && WebPAnimEncoderAdd(encoder, &picture, timestamp, &config);
        WebPPictureFree(&picture);
        if (!ok) {
            const char *text = WebPAnimEncoderGetError(encoder);
            snprintf(message, LC_MESSAGE_CAPACITY, "WebP animation frame %u: %s", i, text && *text ? text : "encoding failed");
            goto done;
        }
        int duration = durations_ms ? durations_ms[i] : 0;
        // Timestamps must grow; a frame of no duration still gets the smallest step.
        timestamp += duration > 0 ? duration : 1;
    }
    if (lc_encode_cancelled(cancel, message)) {
        status = LC_CANCELLED;
        goto done;
    }
    if (!WebPAnimEncoderAdd(encoder, NULL, timestamp, NULL) || !WebPAnimEncoderAssemble(encoder, &assembled)) {
        const char *text = WebPAnimEncoderGetError(encoder);
        snprintf(message, LC_MESSAGE_CAPACITY, "WebP animation: %s", text && *text ? text : "assembly failed");
        goto done;
    }
    // The caller frees with lc_free: a malloc'd copy, not libwebp's allocation.
    status = lc_output_copy(assembled.bytes, assembled.size, out, out_size, message);
done:
    WebPDataClear(&assembled);
    WebPAnimEncoderDelete(encoder);
    return status;
}
