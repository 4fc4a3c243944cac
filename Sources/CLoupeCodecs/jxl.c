// JPEG XL decoding with libjxl (see CLoupeCodecs.h, "JPEG XL").
//
// libjxl is a state machine driven by JxlDecoderProcessInput: it returns events (basic info,
// colour encoding, "need an output buffer", "frame done") and error codes, never callbacks
// that must not return. The header is read up to the colour encoding first, so the limits are
// checked in Swift before the output buffer exists. Pixels come out as stored, the orientation
// reported (as EXIF's, which JPEG XL's values are), so it is applied like every other format's.
//
// libjxl is not linked: every call goes through `lib`, its table from codec_libraries.h, loaded
// on the first create (lazy_library.h says why).
#include "CLoupeCodecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_libraries.h"

struct lc_jxl {
    const lc_jxl_functions *lib;
    JxlDecoder *decoder;
    uint8_t *icc;
};

static const JxlPixelFormat rgba8 = {4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};

lc_jxl *lc_jxl_create(const uint8_t *data, size_t size, lc_jxl_info *info, char *message) {
    memset(info, 0, sizeof *info);
    const lc_jxl_functions *lib = lc_jxl_functions_load(message);
    if (!lib) return NULL;
    lc_jxl *self = calloc(1, sizeof *self);
    if (self) self->lib = lib;
    if (!self || !(self->decoder = lib->JxlDecoderCreate(NULL))) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        lc_jxl_destroy(self);
        return NULL;
    }
    JxlDecoder *decoder = self->decoder;
    if (lib->JxlDecoderSubscribeEvents(decoder, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FULL_IMAGE) != JXL_DEC_SUCCESS
        || lib->JxlDecoderSetKeepOrientation(decoder, JXL_TRUE) != JXL_DEC_SUCCESS
        || lib->JxlDecoderSetInput(decoder, data, size) != JXL_DEC_SUCCESS) {
        snprintf(message, LC_MESSAGE_CAPACITY, "libjxl refused its settings");
        lc_jxl_destroy(self);
        return NULL;
    }
    lib->JxlDecoderCloseInput(decoder);
    int have_info = 0;
    for (int steps = 0; steps < 16; steps++) {  // two events are expected; bounded anyway
        JxlDecoderStatus status = lib->JxlDecoderProcessInput(decoder);
        if (status == JXL_DEC_BASIC_INFO) {
            JxlBasicInfo basic;
            if (lib->JxlDecoderGetBasicInfo(decoder, &basic) != JXL_DEC_SUCCESS) break;
            info->width = basic.xsize;
            info->height = basic.ysize;
            info->orientation = (int)basic.orientation;
            info->has_alpha = basic.alpha_bits > 0;
            info->grey = basic.num_color_channels == 1;
            info->bits = (int)basic.bits_per_sample;
            info->animated = basic.have_animation ? 1 : 0;
            have_info = 1;
        } else if (status == JXL_DEC_COLOR_ENCODING) {
            // The profile of the pixels libjxl will output (for XYB images, the original's).
            size_t icc_size = 0;
            if (lib->JxlDecoderGetICCProfileSize(decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &icc_size) == JXL_DEC_SUCCESS
                && icc_size > 0 && (self->icc = malloc(icc_size))
                && lib->JxlDecoderGetColorAsICCProfile(decoder, NULL, JXL_COLOR_PROFILE_TARGET_DATA, self->icc, icc_size) == JXL_DEC_SUCCESS) {
                info->icc = self->icc;
                info->icc_size = icc_size;
            }
            if (have_info) return self;
            break;
        } else {
            snprintf(message, LC_MESSAGE_CAPACITY, "%s",
                     status == JXL_DEC_NEED_MORE_INPUT ? "truncated JPEG XL header" : "invalid JPEG XL header");
            lc_jxl_destroy(self);
            return NULL;
        }
    }
    snprintf(message, LC_MESSAGE_CAPACITY, "invalid JPEG XL header");
    lc_jxl_destroy(self);
    return NULL;
}

int lc_jxl_decode(lc_jxl *self, uint8_t *out, size_t stride, uint32_t width, uint32_t height, char *message) {
    const lc_jxl_functions *lib = self->lib;
    JxlDecoder *decoder = self->decoder;
    if (stride != (size_t)width * 4) {
        snprintf(message, LC_MESSAGE_CAPACITY, "JPEG XL output must be tightly packed");
        return LC_ERROR;
    }
    // Bounded: one buffer request and one frame event, plus preview/frame events of a file
    // with many layers (each a pass of the loop).
    for (int steps = 0; steps < 100000; steps++) {
        JxlDecoderStatus status = lib->JxlDecoderProcessInput(decoder);
        switch (status) {
        case JXL_DEC_NEED_IMAGE_OUT_BUFFER: {
            size_t needed = 0;
            if (lib->JxlDecoderImageOutBufferSize(decoder, &rgba8, &needed) != JXL_DEC_SUCCESS || needed != stride * height) {
                snprintf(message, LC_MESSAGE_CAPACITY, "JPEG XL frame size differs from its header");
                return LC_ERROR;
            }
            if (lib->JxlDecoderSetImageOutBuffer(decoder, &rgba8, out, needed) != JXL_DEC_SUCCESS) {
                snprintf(message, LC_MESSAGE_CAPACITY, "libjxl refused the output buffer");
                return LC_ERROR;
            }
            break;
        }
        case JXL_DEC_FULL_IMAGE:
            return LC_OK;  // the first (composited) frame
        case JXL_DEC_NEED_MORE_INPUT:
            snprintf(message, LC_MESSAGE_CAPACITY, "truncated JPEG XL data");
            return LC_ERROR;
        case JXL_DEC_SUCCESS:
            snprintf(message, LC_MESSAGE_CAPACITY, "JPEG XL file has no frame");
            return LC_ERROR;
        case JXL_DEC_ERROR:
            snprintf(message, LC_MESSAGE_CAPACITY, "invalid JPEG XL data");
            return LC_ERROR;
        default:
            break;  // other subscribed events carry nothing more
        }
    }
    snprintf(message, LC_MESSAGE_CAPACITY, "JPEG XL decoder made no progress");
    return LC_ERROR;
}

void lc_jxl_destroy(lc_jxl *self) {
    if (!self) return;
    const lc_jxl_functions *lib = self->lib;
    if (self->decoder) lib->JxlDecoderDestroy(self->decoder);
    free(self->icc);
    free(self);
}
