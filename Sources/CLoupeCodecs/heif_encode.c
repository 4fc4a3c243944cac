// HEIC encoding with libheif and the HEVC encoder Debian's libheif brings (x265): one 8-bit
// image, RGB or RGBA, at `quality` 0...100 (libheif's lossy quality, as libvips passes its Q),
// tagged sRGB by libheif's default nclx profile. Written through heif_context_write into one
// doubling buffer (encoder_setup.h).
#include "CLoupeCodecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_libraries.h"
#include "encoder_setup.h"

typedef struct {
    lc_output_buffer buffer;
    const char *failure;
} heif_output;

static struct heif_error write_output(struct heif_context *context, const void *data, size_t size, void *user_data) {
    (void)context;
    heif_output *output = user_data;
    const char *failure = lc_output_buffer_reserve(&output->buffer, size);
    if (failure) {
        output->failure = failure;
        return (struct heif_error){heif_error_Encoding_error, heif_suberror_Unspecified, failure};
    }
    memcpy(output->buffer.bytes + output->buffer.size, data, size);
    output->buffer.size += size;
    return (struct heif_error){heif_error_Ok, heif_suberror_Unspecified, "Success"};
}

int lc_heif_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int has_alpha, int quality,
                   const lc_cancel *cancel, uint8_t **out, size_t *out_size, char *message) {
    *out = NULL;
    *out_size = 0;
    const lc_heif_functions *lib = lc_heif_functions_load(message);
    if (!lib) return LC_ERROR;
    if (lc_encode_cancelled(cancel, message)) return LC_CANCELLED;
    heif_output output = {0};
    struct heif_context *context = lib->heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    const char *error = NULL;
    struct heif_error result;
    if (!context) {
        error = "out of memory";
    } else if ((result = lib->heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder)).code != heif_error_Ok) {
        error = result.message;
    } else if ((result = lib->heif_encoder_set_lossy_quality(encoder, quality)).code != heif_error_Ok) {
        error = result.message;
    } else if ((result = lib->heif_image_create((int)width, (int)height, heif_colorspace_RGB,
                                                has_alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &image)).code
               != heif_error_Ok) {
        error = result.message;
    } else if ((result = lib->heif_image_add_plane(image, heif_channel_interleaved, (int)width, (int)height, 8)).code != heif_error_Ok) {
        error = result.message;
    } else {
        int plane_stride = 0;
        uint8_t *plane = lib->heif_image_get_plane(image, heif_channel_interleaved, &plane_stride);
        size_t channels = has_alpha ? 4 : 3;
        if (!plane) {
            error = "libheif gave no image plane";
        } else {
            for (uint32_t y = 0; y < height; y++) {
                const uint8_t *source = rgba + (size_t)y * stride;
                uint8_t *target = plane + (size_t)y * (size_t)plane_stride;
                if (has_alpha) {
                    memcpy(target, source, (size_t)width * 4);
                } else {
                    for (uint32_t x = 0; x < width; x++) memcpy(target + (size_t)x * channels, source + (size_t)x * 4, 3);
                }
            }
            if ((result = lib->heif_context_encode_image(context, image, encoder, NULL, NULL)).code != heif_error_Ok) {
                error = result.message;
            } else if (lc_encode_cancelled(cancel, message)) {
                error = "cancelled";
            } else {
                struct heif_writer writer = {1, write_output};
                if ((result = lib->heif_context_write(context, &writer, &output)).code != heif_error_Ok) {
                    error = output.failure ? output.failure : result.message;
                }
            }
        }
    }
    int status = !error ? LC_OK : strcmp(error, "cancelled") == 0 ? LC_CANCELLED : LC_ERROR;
    // Copied before the context that owns libheif's message is freed.
    char reason[LC_MESSAGE_CAPACITY];
    snprintf(reason, sizeof reason, "%s", error ? error : "");
    if (image) lib->heif_image_release(image);
    if (encoder) lib->heif_encoder_release(encoder);
    if (context) lib->heif_context_free(context);
    return lc_output_buffer_finish(&output.buffer, status, reason, out, out_size, message);
}
