// AVIF decoding and encoding with libavif (see CLoupeCodecs.h, "AVIF").
//
// libavif reports errors as result codes plus a diagnostics string (no callbacks, no longjmp).
// It leaves irot/imir to the caller: they are reported here and applied in Swift.
//
// libavif is not linked: every call goes through `lib`, its table from codec_libraries.h, loaded
// on the first create or encode (lazy_library.h says why).
#include "CLoupeCodecs.h"
#include "encoder_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_libraries.h"
#include "encoder_setup.h"

struct lc_avif {
    const lc_avif_functions *lib;
    avifDecoder *decoder;
};

static void report(const lc_avif_functions *lib, avifResult result, const avifDiagnostics *diag, char *message) {
    if (diag && diag->error[0]) {
        snprintf(message, LC_MESSAGE_CAPACITY, "%s: %s", lib->avifResultToString(result), diag->error);
    } else {
        snprintf(message, LC_MESSAGE_CAPACITY, "%s", lib->avifResultToString(result));
    }
}

lc_avif *lc_avif_create(const uint8_t *data, size_t size, uint32_t max_pixels, uint32_t max_frames, lc_avif_info *info, char *message) {
    memset(info, 0, sizeof *info);
    const lc_avif_functions *lib = lc_avif_functions_load(message);
    if (!lib) return NULL;
    lc_avif *self = calloc(1, sizeof *self);
    if (self) self->lib = lib;
    if (!self || !(self->decoder = lib->avifDecoderCreate())) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        lc_avif_destroy(self);
        return NULL;
    }
    avifDecoder *decoder = self->decoder;
    // One thread: the pipeline decodes several images at once already.
    decoder->maxThreads = 1;
    // libavif checks these while parsing, before any plane is allocated; ours (from the header
    // reported here) are checked again in Swift with their own typed errors.
    if (max_pixels > 0) decoder->imageSizeLimit = max_pixels;
    if (max_frames > 0) decoder->imageCountLimit = max_frames;
    avifResult result = lib->avifDecoderSetIOMemory(decoder, data, size);
    if (result == AVIF_RESULT_OK) result = lib->avifDecoderParse(decoder);
    if (result != AVIF_RESULT_OK) {
        report(lib, result, &decoder->diag, message);
        lc_avif_destroy(self);
        return NULL;
    }
    const avifImage *image = decoder->image;
    info->width = image->width;
    info->height = image->height;
    info->depth = (int)image->depth;
    info->has_alpha = decoder->alphaPresent ? 1 : 0;
    info->frame_count = (uint32_t)(decoder->imageCount > 0 ? decoder->imageCount : 1);
    if (image->icc.size > 0) {
        info->icc = image->icc.data;
        info->icc_size = image->icc.size;
    }
    info->cicp.present = 1;
    info->cicp.primaries = (int)image->colorPrimaries;
    info->cicp.transfer = (int)image->transferCharacteristics;
    info->rotation = (image->transformFlags & AVIF_TRANSFORM_IROT) ? (int)image->irot.angle : 0;
    info->mirror = (image->transformFlags & AVIF_TRANSFORM_IMIR) ? (int)image->imir.mode : -1;
    if (image->exif.size > 0) {
        info->exif = image->exif.data;
        info->exif_size = image->exif.size;
    }
    return self;
}

int lc_avif_decode(lc_avif *self, uint8_t *out, size_t stride, char *message) {
    const lc_avif_functions *lib = self->lib;
    avifDecoder *decoder = self->decoder;
    avifResult result = lib->avifDecoderNextImage(decoder);
    if (result != AVIF_RESULT_OK) {
        report(lib, result, &decoder->diag, message);
        return LC_ERROR;
    }
    avifRGBImage rgb;
    lib->avifRGBImageSetDefaults(&rgb, decoder->image);
    rgb.format = AVIF_RGB_FORMAT_RGBA;
    rgb.depth = 8;  // 10- and 12-bit images are rounded down to 8 bits here
    rgb.pixels = out;
    rgb.rowBytes = (uint32_t)stride;
    result = lib->avifImageYUVToRGB(decoder->image, &rgb);
    if (result != AVIF_RESULT_OK) {
        report(lib, result, NULL, message);
        return LC_ERROR;
    }
    if (!decoder->alphaPresent) {
        // libavif leaves the alpha bytes alone when the image has none.
        for (uint32_t y = 0; y < rgb.height; y++) {
            uint8_t *row = out + (size_t)y * stride;
            for (uint32_t x = 0; x < rgb.width; x++) row[4 * x + 3] = 255;
        }
    }
    return LC_OK;
}

void lc_avif_destroy(lc_avif *self) {
    if (!self) return;
    const lc_avif_functions *lib = self->lib;
    if (self->decoder) lib->avifDecoderDestroy(self->decoder);
    free(self);
}

int lc_avif_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int has_alpha, int quality,
                   int speed, const uint8_t *icc, size_t icc_size, const lc_cancel *cancel, uint8_t **out, size_t *out_size,
                   char *message) {
    const lc_avif_functions *lib = lc_avif_functions_load(message);
    if (!lib) return LC_ERROR;
    int status = LC_ERROR;
    avifRWData output = AVIF_DATA_EMPTY;
    avifEncoder *encoder = NULL;
    // 4:2:0, 8 bits, BT.601 matrix and sRGB's primaries and transfer (CICP 1/13/6), as
    // avifenc writes an sRGB photo by default.
    avifImage *image = lib->avifImageCreate(width, height, 8, AVIF_PIXEL_FORMAT_YUV420);
    if (!image) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        return LC_ERROR;
    }
    image->colorPrimaries = AVIF_COLOR_PRIMARIES_BT709;
    image->transferCharacteristics = AVIF_TRANSFER_CHARACTERISTICS_SRGB;
    image->matrixCoefficients = AVIF_MATRIX_COEFFICIENTS_BT601;
    image->yuvRange = AVIF_RANGE_FULL;
    if (icc && icc_size > 0) lib->avifImageSetProfileICC(image, icc, icc_size);
    avifRGBImage rgb;
    lib->avifRGBImageSetDefaults(&rgb, image);
    rgb.format = AVIF_RGB_FORMAT_RGBA;
    rgb.depth = 8;
    rgb.ignoreAlpha = has_alpha ? AVIF_FALSE : AVIF_TRUE;
    rgb.pixels = (uint8_t *)rgba;  // read only: avifImageRGBToYUV does not write to it
    rgb.rowBytes = (uint32_t)stride;
    avifResult result = lib->avifImageRGBToYUV(image, &rgb);
    if (result != AVIF_RESULT_OK) {
        report(lib, result, NULL, message);
        goto done;
    }
    // libavif has no progress callback: the check runs between the colour conversion and the
    // AV1 encode, which then runs to its end.
    if (lc_encode_cancelled(cancel, message)) {
        status = LC_CANCELLED;
        goto done;
    }
    encoder = lib->avifEncoderCreate();
    if (!encoder) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        goto done;
    }
    encoder->maxThreads = 1;
    encoder->speed = speed;
    // Quality 0...100 onto AV1's quantizer 63...0 (libavif 1.0's own mapping, which 0.11 lacks).
    int quantizer = ((100 - quality) * 63 + 50) / 100;
    encoder->minQuantizer = quantizer;
    encoder->maxQuantizer = quantizer;
    encoder->minQuantizerAlpha = quantizer;
    encoder->maxQuantizerAlpha = quantizer;
    result = lib->avifEncoderWrite(encoder, image, &output);
    if (result != AVIF_RESULT_OK) {
        report(lib, result, &encoder->diag, message);
        goto done;
    }
    // The caller frees with lc_free: a malloc'd copy, not libavif's allocation.
    status = lc_output_copy(output.data, output.size, out, out_size, message);
done:
    lib->avifRWDataFree(&output);
    if (encoder) lib->avifEncoderDestroy(encoder);
    lib->avifImageDestroy(image);
    return status;
}
