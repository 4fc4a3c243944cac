// HEIF/HEIC decoding with libheif (see CLoupeCodecs.h, "HEIF").
//
// libheif reports errors as returned structs (no callbacks, no longjmp), applies the
// irot/imir/clap transformations while decoding, and converts YCbCr of any depth to RGBA8.
//
// libheif is not linked: every call goes through `lib`, its table from codec_libraries.h, loaded
// on the first create (lazy_library.h says why).
#include "CLoupeCodecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_libraries.h"

// libheif's default side limit (MAX_IMAGE_WIDTH in its heif_limits.h).
#define LC_HEIF_MAX_SIDE 32768

struct lc_heif {
    const lc_heif_functions *lib;
    struct heif_context *context;
    struct heif_image_handle *primary;
    struct heif_image_handle *thumbnail;
    uint8_t *icc;
};

static int failed(struct heif_error error, char *message) {
    if (error.code == heif_error_Ok) return 0;
    snprintf(message, LC_MESSAGE_CAPACITY, "%s", error.message ? error.message : "libheif error");
    return 1;
}

// CICP colour description of a handle's nclx colr box, when it has one.
static void read_nclx(const lc_heif_functions *lib, const struct heif_image_handle *handle, lc_cicp *cicp) {
    struct heif_color_profile_nclx *nclx = NULL;
    struct heif_error error = lib->heif_image_handle_get_nclx_color_profile(handle, &nclx);
    if (error.code != heif_error_Ok || !nclx) return;
    cicp->present = 1;
    cicp->primaries = (int)nclx->color_primaries;
    cicp->transfer = (int)nclx->transfer_characteristics;
    lib->heif_nclx_color_profile_free(nclx);
}

lc_heif *lc_heif_create(const uint8_t *data, size_t size, int max_side, lc_heif_info *info, char *message) {
    memset(info, 0, sizeof *info);
    const lc_heif_functions *lib = lc_heif_functions_load(message);
    if (!lib) return NULL;
    lc_heif *self = calloc(1, sizeof *self);
    if (self) self->lib = lib;
    if (!self || !(self->context = lib->heif_context_alloc())) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        lc_heif_destroy(self);
        return NULL;
    }
    // libheif refuses larger images while parsing (grid images included), before any pixel.
    // Never above libheif's own default (32768), which a large pixel limit would otherwise
    // raise.
    if (max_side <= 0 || max_side > LC_HEIF_MAX_SIDE) max_side = LC_HEIF_MAX_SIDE;
    lib->heif_context_set_maximum_image_size_limit(self->context, max_side);
    if (failed(lib->heif_context_read_from_memory_without_copy(self->context, data, size, NULL), message)
        || failed(lib->heif_context_get_primary_image_handle(self->context, &self->primary), message)) {
        lc_heif_destroy(self);
        return NULL;
    }
    info->width = (uint32_t)lib->heif_image_handle_get_width(self->primary);
    info->height = (uint32_t)lib->heif_image_handle_get_height(self->primary);
    // A grid or overlay image is composed on a canvas whose size its own box gives, checked
    // against this limit only when decoding (a fuzzed iovl box asked for 1.3 GB per plane
    // behind a small declared size): bounded by the declared longest side, the canvas cannot
    // exceed that side squared, whatever the box claims.
    uint32_t longest = info->width > info->height ? info->width : info->height;
    if (longest < (uint32_t)max_side) lib->heif_context_set_maximum_image_size_limit(self->context, (int)longest + 1);
    info->has_alpha = lib->heif_image_handle_has_alpha_channel(self->primary);
    info->bit_depth = lib->heif_image_handle_get_luma_bits_per_pixel(self->primary);
    info->image_count = (uint32_t)lib->heif_context_get_number_of_top_level_images(self->context);
    switch (lib->heif_image_handle_get_color_profile_type(self->primary)) {
    case heif_color_profile_type_prof:
    case heif_color_profile_type_rICC: {
        size_t icc_size = lib->heif_image_handle_get_raw_color_profile_size(self->primary);
        if (icc_size > 0 && (self->icc = malloc(icc_size))
            && lib->heif_image_handle_get_raw_color_profile(self->primary, self->icc).code == heif_error_Ok) {
            info->icc = self->icc;
            info->icc_size = icc_size;
        }
        break;
    }
    default: break;
    }
    read_nclx(lib, self->primary, &info->cicp);
    // The largest thumbnail item (iPhones store one of 320 px or so): a small request can
    // decode it instead of the full image.
    int count = lib->heif_image_handle_get_number_of_thumbnails(self->primary);
    if (count > 0) {
        heif_item_id ids[8];
        int n = lib->heif_image_handle_get_list_of_thumbnail_IDs(self->primary, ids, count < 8 ? count : 8);
        for (int i = 0; i < n; i++) {
            struct heif_image_handle *thumbnail = NULL;
            if (lib->heif_image_handle_get_thumbnail(self->primary, ids[i], &thumbnail).code != heif_error_Ok) continue;
            uint32_t w = (uint32_t)lib->heif_image_handle_get_width(thumbnail);
            if (w > info->thumbnail_width) {
                lib->heif_image_handle_release(self->thumbnail);
                self->thumbnail = thumbnail;
                info->thumbnail_width = w;
                info->thumbnail_height = (uint32_t)lib->heif_image_handle_get_height(thumbnail);
            } else {
                lib->heif_image_handle_release(thumbnail);
            }
        }
    }
    return self;
}

int lc_heif_decode(lc_heif *self, int thumbnail, uint32_t width, uint32_t height, uint8_t *out, size_t stride, char *message) {
    const lc_heif_functions *lib = self->lib;
    struct heif_image_handle *handle = thumbnail && self->thumbnail ? self->thumbnail : self->primary;
    struct heif_decoding_options *options = lib->heif_decoding_options_alloc();
    if (!options) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        return LC_ERROR;
    }
    options->convert_hdr_to_8bit = 1;
    struct heif_image *image = NULL;
    struct heif_error error = lib->heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, options);
    lib->heif_decoding_options_free(options);
    if (failed(error, message)) return LC_ERROR;
    int status = LC_ERROR;
    int plane_stride = 0;
    const uint8_t *plane = lib->heif_image_get_plane_readonly(image, heif_channel_interleaved, &plane_stride);
    int w = lib->heif_image_get_width(image, heif_channel_interleaved);
    int h = lib->heif_image_get_height(image, heif_channel_interleaved);
    if (!plane || plane_stride < 0 || w != (int)width || h != (int)height) {
        // The header's size is what the limits were checked against: anything else is corrupt.
        snprintf(message, LC_MESSAGE_CAPACITY, "decoded image is %dx%d, its header says %ux%u", w, h, width, height);
    } else {
        for (uint32_t y = 0; y < height; y++) memcpy(out + (size_t)y * stride, plane + (size_t)y * (size_t)plane_stride, (size_t)width * 4);
        status = LC_OK;
    }
    lib->heif_image_release(image);
    return status;
}

void lc_heif_destroy(lc_heif *self) {
    if (!self) return;
    const lc_heif_functions *lib = self->lib;
    if (self->thumbnail) lib->heif_image_handle_release(self->thumbnail);
    if (self->primary) lib->heif_image_handle_release(self->primary);
    if (self->context) lib->heif_context_free(self->context);
    free(self->icc);
    free(self);
}
