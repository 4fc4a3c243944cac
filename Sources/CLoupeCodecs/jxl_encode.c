// JPEG XL encoding with libjxl (see CLoupeCodecs.h, "JPEG XL").
//
// One frame, 8-bit RGB or RGBA tagged sRGB, lossy (VarDCT) at the Butteraugli distance that
// `quality` maps to — the same mapping cjxl and libvips use (libjxl 0.7 has no
// JxlEncoderDistanceFromQuality) — at the given effort. The output grows through
// JxlEncoderProcessOutput into one doubling buffer (encoder_setup.h).
#include "CLoupeCodecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_libraries.h"
#include "encoder_setup.h"

/// cjxl's quality scale: 100 is distance 0.1 (visually lossless), 90 is 1.0, 30 is 6.4; below
/// 30 the distance grows quadratically to 25 at quality 0.
static float distance_for_quality(int quality) {
    if (quality >= 100) return 0.0f;
    if (quality >= 30) return 0.1f + (float)(100 - quality) * 0.09f;
    double q = quality;
    return (float)(53.0 / 3000.0 * q * q - 23.0 / 20.0 * q + 25.0);
}

int lc_jxl_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int has_alpha, int quality, int effort,
                  const lc_cancel *cancel, uint8_t **out, size_t *out_size, char *message) {
    *out = NULL;
    *out_size = 0;
    const lc_jxl_functions *lib = lc_jxl_functions_load(message);
    if (!lib) return LC_ERROR;
    if (lc_encode_cancelled(cancel, message)) return LC_CANCELLED;
    size_t channels = has_alpha ? 4 : 3;
    size_t row = (size_t)width * channels;
    uint8_t *pixels = malloc(row * height);
    JxlEncoder *encoder = lib->JxlEncoderCreate(NULL);
    lc_output_buffer output = {0};
    const char *error = NULL;
    if (!pixels || !encoder) error = "out of memory";
    if (!error) {
        // Packed rows of 3 or 4 channels: what libjxl takes (no stride).
        for (uint32_t y = 0; y < height; y++) {
            const uint8_t *source = rgba + (size_t)y * stride;
            uint8_t *target = pixels + (size_t)y * row;
            if (has_alpha) {
                memcpy(target, source, row);
            } else {
                for (uint32_t x = 0; x < width; x++) memcpy(target + (size_t)x * 3, source + (size_t)x * 4, 3);
            }
        }
        JxlBasicInfo info;
        lib->JxlEncoderInitBasicInfo(&info);
        info.xsize = width;
        info.ysize = height;
        info.bits_per_sample = 8;
        info.num_color_channels = 3;
        info.alpha_bits = has_alpha ? 8 : 0;
        info.num_extra_channels = has_alpha ? 1 : 0;
        info.uses_original_profile = JXL_FALSE;
        JxlColorEncoding color;
        lib->JxlColorEncodingSetToSRGB(&color, JXL_FALSE);
        JxlEncoderFrameSettings *settings = NULL;
        JxlPixelFormat format = {(uint32_t)channels, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
        if (lib->JxlEncoderSetBasicInfo(encoder, &info) != JXL_ENC_SUCCESS
            || lib->JxlEncoderSetColorEncoding(encoder, &color) != JXL_ENC_SUCCESS
            || !(settings = lib->JxlEncoderFrameSettingsCreate(encoder, NULL))
            || lib->JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, effort) != JXL_ENC_SUCCESS
            || lib->JxlEncoderSetFrameDistance(settings, distance_for_quality(quality)) != JXL_ENC_SUCCESS) {
            error = "libjxl refused the settings";
        } else if (lib->JxlEncoderAddImageFrame(settings, &format, pixels, row * height) != JXL_ENC_SUCCESS) {
            error = "libjxl refused the image";
        } else {
            lib->JxlEncoderCloseInput(encoder);
        }
    }
    int status = error ? LC_ERROR : LC_OK;
    // Bounded: each pass either fills the free space or finishes; the buffer doubles each time
    // it is full, so a few dozen passes reach any size an image can have.
    for (int pass = 0; status == LC_OK; pass++) {
        if (pass > 64) {
            error = "libjxl made no progress";
            status = LC_ERROR;
            break;
        }
        if (cancel && cancel->is_cancelled && cancel->is_cancelled(cancel->context)) {
            error = "cancelled";
            status = LC_CANCELLED;
            break;
        }
        // Room for as much again as has been written, and 64 KiB: the buffer doubles.
        const char *failure = lc_output_buffer_reserve(&output, output.size + 65536);
        if (failure) {
            error = failure;
            status = LC_ERROR;
            break;
        }
        uint8_t *next = output.bytes + output.size;
        size_t available = output.capacity - output.size;
        JxlEncoderStatus result = lib->JxlEncoderProcessOutput(encoder, &next, &available);
        output.size = (size_t)(next - output.bytes);
        if (result == JXL_ENC_SUCCESS) break;
        if (result != JXL_ENC_NEED_MORE_OUTPUT) {
            error = "libjxl could not encode the image";
            status = LC_ERROR;
        }
    }
    if (encoder) lib->JxlEncoderDestroy(encoder);
    free(pixels);
    return lc_output_buffer_finish(&output, status, status == LC_OK ? "" : error, out, out_size, message);
}
