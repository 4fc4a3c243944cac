// libjpeg-turbo decode/encode with setjmp-based error recovery (see CLoupeCodecs.h).
#include "CLoupeCodecs.h"
#include "encoder_setup.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char message[LC_MESSAGE_CAPACITY];
    int warnings;
} lc_jpeg_error;

struct lc_jpeg {
    struct jpeg_decompress_struct cinfo;
    lc_jpeg_error error;
    struct jpeg_progress_mgr progress;
    int max_scans;
    int header_read;
    JOCTET *icc;
};

// The default error_exit calls exit(); jumping back to the entry point is the only way out.
static void on_error_exit(j_common_ptr cinfo) {
    lc_jpeg_error *error = (lc_jpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, error->message);
    longjmp(error->jump, 1);
}

// Warnings (level -1: corrupt or truncated data that libjpeg recovered from) are counted,
// keeping the first message; trace messages (level >= 0) are dropped instead of printed.
static void on_emit_message(j_common_ptr cinfo, int level) {
    lc_jpeg_error *error = (lc_jpeg_error *)cinfo->err;
    if (level < 0) {
        if (error->warnings == 0) (*cinfo->err->format_message)(cinfo, error->message);
        error->warnings++;
    }
}

static void on_output_message(j_common_ptr cinfo) { (void)cinfo; }

// A crafted progressive JPEG can hold thousands of tiny scans, each a full pass over the
// coefficients; bounding the scan count bounds the time (libjpeg-turbo's djpeg -maxscans).
static void on_progress(j_common_ptr common) {
    j_decompress_ptr cinfo = (j_decompress_ptr)common;
    lc_jpeg *jpeg = (lc_jpeg *)cinfo->client_data;
    if (cinfo->is_decompressor && cinfo->input_scan_number > jpeg->max_scans) {
        snprintf(jpeg->error.message, sizeof jpeg->error.message,
                 "progressive JPEG has more than %d scans", jpeg->max_scans);
        longjmp(jpeg->error.jump, 1);
    }
}

static void install_error_manager(struct jpeg_error_mgr *base) {
    jpeg_std_error(base);
    base->error_exit = on_error_exit;
    base->emit_message = on_emit_message;
    base->output_message = on_output_message;
}

lc_jpeg *lc_jpeg_create(const uint8_t *data, size_t size) {
    lc_jpeg *jpeg = calloc(1, sizeof *jpeg);
    if (!jpeg) return NULL;
    install_error_manager(&jpeg->error.base);
    jpeg->cinfo.err = &jpeg->error.base;
    jpeg->cinfo.client_data = jpeg;
    jpeg->max_scans = 1000;
    if (setjmp(jpeg->error.jump)) {
        jpeg_destroy_decompress(&jpeg->cinfo);
        free(jpeg);
        return NULL;
    }
    jpeg_create_decompress(&jpeg->cinfo);
    jpeg->progress.progress_monitor = on_progress;
    jpeg->cinfo.progress = &jpeg->progress;
    jpeg_mem_src(&jpeg->cinfo, data, (unsigned long)size);
    return jpeg;
}

int lc_jpeg_read_header(lc_jpeg *jpeg, lc_jpeg_header *header) {
    if (setjmp(jpeg->error.jump)) return LC_ERROR;
    jpeg_save_markers(&jpeg->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&jpeg->cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&jpeg->cinfo, TRUE);
    jpeg->header_read = 1;
    memset(header, 0, sizeof *header);
    header->width = jpeg->cinfo.image_width;
    header->height = jpeg->cinfo.image_height;
    header->components = jpeg->cinfo.num_components;
    header->color_space = (int)jpeg->cinfo.jpeg_color_space;
    header->progressive = jpeg->cinfo.progressive_mode ? 1 : 0;
    for (jpeg_saved_marker_ptr m = jpeg->cinfo.marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1 && m->data_length > 6 && memcmp(m->data, "Exif\0\0", 6) == 0) {
            header->exif = m->data + 6;
            header->exif_size = m->data_length - 6;
            break;
        }
    }
    header->adobe_marker = jpeg->cinfo.saw_Adobe_marker ? 1 : 0;
    // jpeg_read_icc_profile reassembles the APP2 "ICC_PROFILE" chunks in sequence order and
    // returns FALSE (without raising an error) when they are missing, duplicated or inconsistent.
    unsigned int icc_size = 0;
    if (!jpeg->icc && jpeg_read_icc_profile(&jpeg->cinfo, &jpeg->icc, &icc_size) && jpeg->icc) {
        header->icc = jpeg->icc;
        header->icc_size = icc_size;
    }
    return LC_OK;
}

int lc_jpeg_configure(lc_jpeg *jpeg, int scale_num, uint32_t *out_width, uint32_t *out_height) {
    if (scale_num < 1 || scale_num > 8) {
        snprintf(jpeg->error.message, sizeof jpeg->error.message, "JPEG scale %d/8 is not in 1/8...8/8", scale_num);
        return LC_ERROR;
    }
    if (setjmp(jpeg->error.jump)) return LC_ERROR;
    j_decompress_ptr cinfo = &jpeg->cinfo;
    // libjpeg-turbo scales by any N/8 (its IDCTs output 1x1 to 8x8 per block), giving
    // ceil(size * N / 8) pixels per side.
    cinfo->scale_num = (unsigned int)scale_num;
    cinfo->scale_denom = 8;
    // CMYK and YCCK come out as CMYK for the caller to convert; everything else (gray, RGB,
    // YCbCr) libjpeg-turbo converts straight to RGBA with alpha 255.
    if (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK) {
        cinfo->out_color_space = JCS_CMYK;
    } else {
        cinfo->out_color_space = JCS_EXT_RGBA;
    }
    // Slightly faster and visually equivalent for thumbnails is JDCT_IFAST, but its error
    // grows with quality; ISLOW (the default) keeps decoded pixels within 1 of the reference.
    cinfo->dct_method = JDCT_ISLOW;
    jpeg_calc_output_dimensions(cinfo);
    *out_width = cinfo->output_width;
    *out_height = cinfo->output_height;
    return LC_OK;
}

int lc_jpeg_decode(lc_jpeg *jpeg, uint8_t *out, size_t stride, int max_scans) {
    j_decompress_ptr cinfo = &jpeg->cinfo;
    jpeg->max_scans = max_scans;
    if (setjmp(jpeg->error.jump)) return LC_ERROR;
    jpeg_start_decompress(cinfo);
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW rows[4];
        int n = 0;
        for (; n < 4 && cinfo->output_scanline + (JDIMENSION)n < cinfo->output_height; n++) {
            rows[n] = out + (size_t)(cinfo->output_scanline + (JDIMENSION)n) * stride;
        }
        JDIMENSION read = jpeg_read_scanlines(cinfo, rows, (JDIMENSION)n);
        if (read == 0) {
            // Only a suspending data source returns 0; with jpeg_mem_src this is a safety net.
            snprintf(jpeg->error.message, sizeof jpeg->error.message, "JPEG decoder made no progress");
            return LC_ERROR;
        }
    }
    jpeg_finish_decompress(cinfo);
    return LC_OK;
}

int lc_jpeg_warning_count(const lc_jpeg *jpeg) { return jpeg->error.warnings; }

const char *lc_jpeg_message(const lc_jpeg *jpeg) { return jpeg->error.message; }

void lc_jpeg_destroy(lc_jpeg *jpeg) {
    if (!jpeg) return;
    jpeg_destroy_decompress(&jpeg->cinfo);
    free(jpeg->icc);
    free(jpeg);
}

// Encoding state lives in one struct so the error path can free the output buffer, which a
// longjmp would otherwise leak. Our own growable destination (instead of jpeg_mem_dest) keeps
// the buffer pointer current at every moment, so that free is always of the live allocation.
typedef struct {
    struct jpeg_compress_struct cinfo;
    lc_jpeg_error error;
    struct jpeg_destination_mgr dest;
    lc_output_buffer output;
    struct jpeg_progress_mgr progress;
    const lc_cancel *cancel;
    int cancelled;
} lc_jpeg_encoder;

// libjpeg-turbo calls this at each jpeg_write_scanlines and at each row of the passes that
// jpeg_finish_compress runs (all of a progressive file's): where a cancelled encode stops.
static void on_encode_progress(j_common_ptr common) {
    lc_jpeg_encoder *enc = (lc_jpeg_encoder *)common->client_data;
    if (lc_encode_cancelled(enc->cancel, enc->error.message)) {
        enc->cancelled = 1;
        longjmp(enc->error.jump, 1);
    }
}

static void dest_init(j_compress_ptr cinfo) { (void)cinfo; }

static boolean dest_grow(j_compress_ptr cinfo) {
    lc_jpeg_encoder *enc = (lc_jpeg_encoder *)cinfo->client_data;
    enc->output.size = enc->output.capacity;  // libjpeg only calls this when the buffer is full
    if (lc_output_buffer_reserve(&enc->output, 1)) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 0);
    cinfo->dest->next_output_byte = enc->output.bytes + enc->output.size;
    cinfo->dest->free_in_buffer = enc->output.capacity - enc->output.size;
    return TRUE;
}

static void dest_term(j_compress_ptr cinfo) {
    lc_jpeg_encoder *enc = (lc_jpeg_encoder *)cinfo->client_data;
    enc->output.size = enc->output.capacity - cinfo->dest->free_in_buffer;
}

static int encode_into(lc_jpeg_encoder *enc, const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride,
                       int quality, int progressive, int grey) {
    if (setjmp(enc->error.jump)) return enc->cancelled ? LC_CANCELLED : LC_ERROR;
    jpeg_create_compress(&enc->cinfo);
    enc->cinfo.client_data = enc;
    if (enc->cancel) {
        enc->progress.progress_monitor = on_encode_progress;
        enc->cinfo.progress = &enc->progress;
    }
    // The first allocation (64 KiB); dest_grow doubles it.
    if (lc_output_buffer_reserve(&enc->output, 1)) ERREXIT1(&enc->cinfo, JERR_OUT_OF_MEMORY, 0);
    enc->dest.next_output_byte = enc->output.bytes;
    enc->dest.free_in_buffer = enc->output.capacity;
    enc->dest.init_destination = dest_init;
    enc->dest.empty_output_buffer = dest_grow;
    enc->dest.term_destination = dest_term;
    enc->cinfo.dest = &enc->dest;
    enc->cinfo.image_width = width;
    enc->cinfo.image_height = height;
    enc->cinfo.input_components = 4;
    enc->cinfo.in_color_space = JCS_EXT_RGBX;  // libjpeg-turbo skips the fourth byte
    jpeg_set_defaults(&enc->cinfo);
    // One component: libjpeg-turbo takes the luma of each RGBX pixel, which is its grey value
    // exactly when R = G = B (the weights sum to one in its fixed point).
    if (grey) jpeg_set_colorspace(&enc->cinfo, JCS_GRAYSCALE);
    jpeg_set_quality(&enc->cinfo, quality, TRUE);
    if (progressive) jpeg_simple_progression(&enc->cinfo);
    jpeg_start_compress(&enc->cinfo, TRUE);
    while (enc->cinfo.next_scanline < height) {
        JSAMPROW row = (JSAMPROW)(rgba + (size_t)enc->cinfo.next_scanline * stride);
        jpeg_write_scanlines(&enc->cinfo, &row, 1);
    }
    jpeg_finish_compress(&enc->cinfo);
    return LC_OK;
}

int lc_jpeg_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int quality,
                   int progressive, int grey, const lc_cancel *cancel, uint8_t **out, size_t *out_size, char *message) {
    lc_jpeg_encoder *enc = lc_encoder_state(sizeof *enc, message);
    if (!enc) return LC_ERROR;
    enc->cancel = cancel;
    install_error_manager(&enc->error.base);
    enc->cinfo.err = &enc->error.base;
    int status = encode_into(enc, rgba, width, height, stride, quality, progressive, grey);
    jpeg_destroy_compress(&enc->cinfo);
    status = lc_output_buffer_finish(&enc->output, status, enc->error.message, out, out_size, message);
    free(enc);
    return status;
}

void lc_free(void *pointer) { free(pointer); }
