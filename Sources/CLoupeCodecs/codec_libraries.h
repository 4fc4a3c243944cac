// The functions heif.c, avif.c, jxl.c, tiff.c and svg.c call in libheif, libavif, libjxl, libtiff and librsvg
// (with the cairo and GLib functions it brings), as tables filled
// on first use (lazy_library.h says why they are not linked). Each list is the single place a
// function is named: a call through the table to a function missing from its list does not
// compile. Internal to CLoupeCodecs (not in include/).
#ifndef LC_CODEC_LIBRARIES_H
#define LC_CODEC_LIBRARIES_H

#include <avif/avif.h>
#include <jxl/decode.h>
#include <jxl/encode.h>
#include <libheif/heif.h>
#include <tiffio.h>

#include "lazy_library.h"
#include "rsvg_api.h"

#define LC_HEIF_FUNCTIONS(X)                          \
    X(heif_context_alloc)                             \
    X(heif_context_free)                              \
    X(heif_context_set_maximum_image_size_limit)      \
    X(heif_context_read_from_memory_without_copy)     \
    X(heif_context_get_primary_image_handle)          \
    X(heif_context_get_number_of_top_level_images)    \
    X(heif_image_handle_get_width)                    \
    X(heif_image_handle_get_height)                   \
    X(heif_image_handle_has_alpha_channel)            \
    X(heif_image_handle_get_luma_bits_per_pixel)      \
    X(heif_image_handle_get_color_profile_type)       \
    X(heif_image_handle_get_raw_color_profile_size)   \
    X(heif_image_handle_get_raw_color_profile)        \
    X(heif_image_handle_get_nclx_color_profile)       \
    X(heif_nclx_color_profile_free)                   \
    X(heif_image_handle_get_number_of_thumbnails)     \
    X(heif_image_handle_get_list_of_thumbnail_IDs)    \
    X(heif_image_handle_get_thumbnail)                \
    X(heif_image_handle_release)                      \
    X(heif_decoding_options_alloc)                    \
    X(heif_decoding_options_free)                     \
    X(heif_decode_image)                              \
    X(heif_image_get_plane_readonly)                  \
    X(heif_image_get_width)                           \
    X(heif_image_get_height)                          \
    X(heif_image_release)                             \
    X(heif_context_get_encoder_for_format)            \
    X(heif_encoder_set_lossy_quality)                 \
    X(heif_encoder_release)                           \
    X(heif_image_create)                              \
    X(heif_image_add_plane)                           \
    X(heif_image_get_plane)                           \
    X(heif_context_encode_image)                      \
    X(heif_context_write)

#define LC_AVIF_FUNCTIONS(X)      \
    X(avifResultToString)         \
    X(avifDecoderCreate)          \
    X(avifDecoderSetIOMemory)     \
    X(avifDecoderParse)           \
    X(avifDecoderNextImage)       \
    X(avifDecoderDestroy)         \
    X(avifRGBImageSetDefaults)    \
    X(avifImageYUVToRGB)          \
    X(avifImageRGBToYUV)          \
    X(avifImageCreate)            \
    X(avifImageSetProfileICC)     \
    X(avifImageDestroy)           \
    X(avifEncoderCreate)          \
    X(avifEncoderWrite)           \
    X(avifEncoderDestroy)         \
    X(avifRWDataFree)

#define LC_JXL_FUNCTIONS(X)             \
    X(JxlDecoderCreate)                 \
    X(JxlDecoderSubscribeEvents)        \
    X(JxlDecoderSetKeepOrientation)     \
    X(JxlDecoderSetInput)               \
    X(JxlDecoderCloseInput)             \
    X(JxlDecoderProcessInput)           \
    X(JxlDecoderGetBasicInfo)           \
    X(JxlDecoderGetICCProfileSize)      \
    X(JxlDecoderGetColorAsICCProfile)   \
    X(JxlDecoderImageOutBufferSize)     \
    X(JxlDecoderSetImageOutBuffer)      \
    X(JxlDecoderDestroy)                \
    X(JxlEncoderCreate)                 \
    X(JxlEncoderDestroy)                \
    X(JxlEncoderInitBasicInfo)          \
    X(JxlEncoderSetBasicInfo)           \
    X(JxlColorEncodingSetToSRGB)        \
    X(JxlEncoderSetColorEncoding)       \
    X(JxlEncoderFrameSettingsCreate)    \
    X(JxlEncoderFrameSettingsSetOption) \
    X(JxlEncoderSetFrameDistance)       \
    X(JxlEncoderAddImageFrame)          \
    X(JxlEncoderCloseInput)             \
    X(JxlEncoderProcessOutput)

#define LC_TIFF_FUNCTIONS(X)                  \
    X(TIFFOpenOptionsAlloc)                   \
    X(TIFFOpenOptionsFree)                    \
    X(TIFFOpenOptionsSetMaxSingleMemAlloc)    \
    X(TIFFOpenOptionsSetErrorHandlerExtR)     \
    X(TIFFOpenOptionsSetWarningHandlerExtR)   \
    X(TIFFClientOpenExt)                      \
    X(TIFFClose)                              \
    X(TIFFGetField)                           \
    X(TIFFGetFieldDefaulted)                  \
    X(TIFFRGBAImageOK)                        \
    X(TIFFRGBAImageBegin)                     \
    X(TIFFRGBAImageGet)                       \
    X(TIFFRGBAImageEnd)                       \
    X(TIFFSetField)                           \
    X(TIFFDefaultStripSize)                   \
    X(TIFFWriteScanline)                      \
    X(TIFFIsTiled)                            \
    X(TIFFScanlineSize64)                     \
    X(TIFFReadScanline)                       \
    X(TIFFWriteDirectory)

#define LC_RSVG_FUNCTIONS(X)                     \
    X(rsvg_handle_new_from_data)                 \
    X(rsvg_handle_set_dpi)                       \
    X(rsvg_handle_get_intrinsic_size_in_pixels)  \
    X(rsvg_handle_get_intrinsic_dimensions)      \
    X(rsvg_handle_render_document)               \
    X(g_object_unref)                            \
    X(g_error_free)                              \
    X(cairo_image_surface_create_for_data)       \
    X(cairo_surface_status)                      \
    X(cairo_surface_flush)                       \
    X(cairo_surface_destroy)                     \
    X(cairo_create)                              \
    X(cairo_status)                              \
    X(cairo_destroy)

typedef struct { LC_HEIF_FUNCTIONS(LC_LAZY_MEMBER) } lc_heif_functions;
typedef struct { LC_AVIF_FUNCTIONS(LC_LAZY_MEMBER) } lc_avif_functions;
typedef struct { LC_JXL_FUNCTIONS(LC_LAZY_MEMBER) } lc_jxl_functions;
typedef struct { LC_TIFF_FUNCTIONS(LC_LAZY_MEMBER) } lc_tiff_functions;
typedef struct { LC_RSVG_FUNCTIONS(LC_LAZY_MEMBER) } lc_rsvg_functions;

/// The library's table, loading it on the first call (thread-safe); NULL when it cannot be
/// loaded, with the reason, naming the library, in `message`.
const lc_heif_functions *lc_heif_functions_load(char *message);
const lc_avif_functions *lc_avif_functions_load(char *message);
const lc_jxl_functions *lc_jxl_functions_load(char *message);
const lc_tiff_functions *lc_tiff_functions_load(char *message);
const lc_rsvg_functions *lc_rsvg_functions_load(char *message);

#endif
