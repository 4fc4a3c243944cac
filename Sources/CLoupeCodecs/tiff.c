// TIFF reading and writing with libtiff (see CLoupeCodecs.h, "TIFF").
//
// libtiff reports errors through handlers; the per-handle ones of TIFFClientOpenExt (libtiff
// 4.5) copy the first message into the handle instead of printing it, so nothing global is
// touched and two threads never share a handler. Files are read from memory through libtiff's
// client procedures (the buffer is "mapped": libtiff reads uncompressed strips in place), and
// every single allocation libtiff makes for a file is bounded (TIFFOpenOptionsSetMaxSingleMemAlloc),
// so a strip or tile that declares more than the image can hold fails instead of allocating.
// Pixels come through TIFFRGBAImage, which reads every photometric interpretation libtiff knows
// (grey, palette, RGB, YCbCr, CMYK, CIE Lab, 1 to 16 bits, strips or tiles) as associated
// RGBA8; the shim asks for the stored orientation (no flips) and divides alpha back out.
//
// libtiff is not linked: every call goes through `lib`, its table from codec_libraries.h,
// loaded on first use (lazy_library.h says why).
#include "CLoupeCodecs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec_libraries.h"
#include "encoder_setup.h"

typedef struct {
    /// Reading: the file. Writing: NULL, the bytes go to `output`.
    const uint8_t *data;
    size_t size;
    size_t position;
    lc_output_buffer output;
    const char *failure;
} lc_tiff_stream;

struct lc_tiff {
    const lc_tiff_functions *lib;
    TIFF *tif;
    lc_tiff_stream stream;
    char message[LC_MESSAGE_CAPACITY];
};

static int is_plain_rgb16(const lc_tiff *self);

static int record_error(TIFF *tif, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tif;
    (void)module;
    char *message = user_data;
    if (message && message[0] == '\0') vsnprintf(message, LC_MESSAGE_CAPACITY, format, arguments);
    return 1;  // handled: libtiff prints nothing
}

static int ignore_warning(TIFF *tif, void *user_data, const char *module, const char *format, va_list arguments) {
    (void)tif, (void)user_data, (void)module, (void)format, (void)arguments;
    return 1;
}

static tmsize_t stream_read(thandle_t handle, void *buffer, tmsize_t count) {
    lc_tiff_stream *stream = handle;
    if (count < 0 || !stream->data || stream->position >= stream->size) return 0;
    size_t n = stream->size - stream->position;
    if ((size_t)count < n) n = (size_t)count;
    memcpy(buffer, stream->data + stream->position, n);
    stream->position += n;
    return (tmsize_t)n;
}

static tmsize_t stream_write(thandle_t handle, void *buffer, tmsize_t count) {
    lc_tiff_stream *stream = handle;
    if (count < 0 || stream->data) return -1;
    lc_output_buffer *output = &stream->output;
    size_t end = stream->position + (size_t)count;
    if (end < stream->position) return -1;
    if (end > output->size) {
        const char *failure = lc_output_buffer_reserve(output, end - output->size);
        if (failure) {
            stream->failure = failure;
            return -1;
        }
        // A seek past the end leaves a gap (libtiff makes none): zeros, not stale memory.
        if (stream->position > output->size) memset(output->bytes + output->size, 0, stream->position - output->size);
        output->size = end;
    }
    memcpy(output->bytes + stream->position, buffer, (size_t)count);
    stream->position = end;
    return count;
}

static toff_t stream_seek(thandle_t handle, toff_t offset, int whence) {
    lc_tiff_stream *stream = handle;
    size_t size = stream->data ? stream->size : stream->output.size;
    uint64_t base = whence == SEEK_CUR ? stream->position : whence == SEEK_END ? size : 0;
    uint64_t target = base + offset;
    if (target > (uint64_t)SIZE_MAX / 2) return (toff_t)-1;
    stream->position = (size_t)target;
    return target;
}

static int stream_close(thandle_t handle) {
    (void)handle;
    return 0;
}

static toff_t stream_size(thandle_t handle) {
    lc_tiff_stream *stream = handle;
    return stream->data ? stream->size : stream->output.size;
}

static int stream_map(thandle_t handle, void **base, toff_t *size) {
    lc_tiff_stream *stream = handle;
    if (!stream->data) return 0;
    *base = (void *)stream->data;
    *size = stream->size;
    return 1;
}

static void stream_unmap(thandle_t handle, void *base, toff_t size) { (void)handle, (void)base, (void)size; }

static TIFF *open_stream(const lc_tiff_functions *lib, const char *mode, lc_tiff_stream *stream, size_t max_allocation,
                         char *message) {
    TIFFOpenOptions *options = lib->TIFFOpenOptionsAlloc();
    if (!options) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        return NULL;
    }
    lib->TIFFOpenOptionsSetMaxSingleMemAlloc(options, (tmsize_t)max_allocation);
    lib->TIFFOpenOptionsSetErrorHandlerExtR(options, record_error, message);
    lib->TIFFOpenOptionsSetWarningHandlerExtR(options, ignore_warning, NULL);
    TIFF *tif = lib->TIFFClientOpenExt("memory", mode, stream, stream_read, stream_write, stream_seek, stream_close,
                                       stream_size, stream_map, stream_unmap, options);
    lib->TIFFOpenOptionsFree(options);
    if (!tif && message[0] == '\0') snprintf(message, LC_MESSAGE_CAPACITY, "not a TIFF file");
    return tif;
}

lc_tiff *lc_tiff_create(const uint8_t *data, size_t size, size_t max_allocation, lc_tiff_info *info, char *message) {
    memset(info, 0, sizeof *info);
    const lc_tiff_functions *lib = lc_tiff_functions_load(message);
    if (!lib) return NULL;
    lc_tiff *self = calloc(1, sizeof *self);
    if (!self) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        return NULL;
    }
    self->lib = lib;
    self->stream.data = data;
    self->stream.size = size;
    // The handle's own buffer: errors during decoding are read from it later.
    self->tif = open_stream(lib, "rm", &self->stream, max_allocation, self->message);
    if (!self->tif) {
        snprintf(message, LC_MESSAGE_CAPACITY, "%s", self->message);
        lc_tiff_destroy(self);
        return NULL;
    }
    TIFF *tif = self->tif;
    uint32_t width = 0, height = 0;
    uint16_t orientation = ORIENTATION_TOPLEFT, photometric = 0, extra_count = 0;
    uint16_t *extra_types = NULL;
    if (!lib->TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &width) || !lib->TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height)) {
        snprintf(message, LC_MESSAGE_CAPACITY, "TIFF file without an image size");
        lc_tiff_destroy(self);
        return NULL;
    }
    lib->TIFFGetFieldDefaulted(tif, TIFFTAG_ORIENTATION, &orientation);
    info->width = width;
    info->height = height;
    info->orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
    if (lib->TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric)) {
        info->grey = photometric == PHOTOMETRIC_MINISBLACK || photometric == PHOTOMETRIC_MINISWHITE;
        // libtiff turns CMYK into RGB by itself (without a profile): a CMYK profile no longer
        // describes the pixels, so it is not reported.
        info->cmyk = photometric == PHOTOMETRIC_SEPARATED;
    }
    if (lib->TIFFGetField(tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra_types) && extra_types) {
        for (uint16_t i = 0; i < extra_count; i++) {
            if (extra_types[i] == EXTRASAMPLE_ASSOCALPHA || extra_types[i] == EXTRASAMPLE_UNASSALPHA) info->has_alpha = 1;
        }
    }
    info->deep = is_plain_rgb16(self);
    uint32_t icc_size = 0;
    void *icc = NULL;
    if (!info->cmyk && lib->TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_size, &icc) && icc && icc_size > 0) {
        info->icc = icc;
        info->icc_size = icc_size;
    }
    return self;
}

/// Whether the image is 16-bit unsigned RGB or MinIsBlack grey, alone or with one unassociated
/// alpha, in contiguous strips: rows lc_tiff_decode16 reads as they are (libtiff puts the
/// samples in the machine's byte order).
static int is_plain_rgb16(const lc_tiff *self) {
    const lc_tiff_functions *lib = self->lib;
    uint16_t bits = 0, samples = 0, planar = PLANARCONFIG_CONTIG, photometric = 0, format = SAMPLEFORMAT_UINT, extra_count = 0;
    uint16_t *extra_types = NULL;
    if (lib->TIFFIsTiled(self->tif) || !lib->TIFFGetField(self->tif, TIFFTAG_BITSPERSAMPLE, &bits) || bits != 16
        || !lib->TIFFGetField(self->tif, TIFFTAG_SAMPLESPERPIXEL, &samples)
        || !lib->TIFFGetField(self->tif, TIFFTAG_PHOTOMETRIC, &photometric)) return 0;
    lib->TIFFGetField(self->tif, TIFFTAG_PLANARCONFIG, &planar);
    lib->TIFFGetField(self->tif, TIFFTAG_SAMPLEFORMAT, &format);
    if (planar != PLANARCONFIG_CONTIG || format != SAMPLEFORMAT_UINT) return 0;
    int colors = photometric == PHOTOMETRIC_RGB ? 3 : photometric == PHOTOMETRIC_MINISBLACK ? 1 : 0;
    if (!colors) return 0;
    if (lib->TIFFGetField(self->tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra_types) && extra_count > 0) {
        return extra_count == 1 && extra_types && extra_types[0] == EXTRASAMPLE_UNASSALPHA && samples == colors + 1;
    }
    return samples == colors;
}

/// Whether the image is 8-bit RGBA with unassociated alpha in contiguous strips: rows that are
/// already what a Bitmap holds, read as they are. TIFFRGBAImage would premultiply them, and
/// dividing alpha back out loses the colour of every faint pixel.
static int is_straight_rgba8(const lc_tiff *self) {
    const lc_tiff_functions *lib = self->lib;
    uint16_t bits = 0, samples = 0, planar = PLANARCONFIG_CONTIG, photometric = 0, format = SAMPLEFORMAT_UINT, extra_count = 0;
    uint16_t *extra_types = NULL;
    return !lib->TIFFIsTiled(self->tif) && lib->TIFFGetField(self->tif, TIFFTAG_BITSPERSAMPLE, &bits) && bits == 8
           && lib->TIFFGetField(self->tif, TIFFTAG_SAMPLESPERPIXEL, &samples) && samples == 4
           && lib->TIFFGetField(self->tif, TIFFTAG_PHOTOMETRIC, &photometric) && photometric == PHOTOMETRIC_RGB
           && (lib->TIFFGetField(self->tif, TIFFTAG_PLANARCONFIG, &planar), planar == PLANARCONFIG_CONTIG)
           && (lib->TIFFGetField(self->tif, TIFFTAG_SAMPLEFORMAT, &format), format == SAMPLEFORMAT_UINT)
           && lib->TIFFGetField(self->tif, TIFFTAG_EXTRASAMPLES, &extra_count, &extra_types) && extra_count == 1 && extra_types
           && extra_types[0] == EXTRASAMPLE_UNASSALPHA;
}

int lc_tiff_decode(lc_tiff *self, uint8_t *out, size_t stride, uint32_t width, uint32_t height, char *message) {
    const lc_tiff_functions *lib = self->lib;
    if (stride != (size_t)width * 4) {
        snprintf(message, LC_MESSAGE_CAPACITY, "TIFF output must be tightly packed");
        return LC_ERROR;
    }
    if (is_straight_rgba8(self) && lib->TIFFScanlineSize64(self->tif) == stride) {
        for (uint32_t y = 0; y < height; y++) {
            if (lib->TIFFReadScanline(self->tif, out + (size_t)y * stride, y, 0) < 0) {
                snprintf(message, LC_MESSAGE_CAPACITY, "%s", self->message[0] ? self->message : "invalid TIFF data");
                return LC_ERROR;
            }
        }
        return LC_OK;
    }
    char reason[1024] = "";
    if (!lib->TIFFRGBAImageOK(self->tif, reason)) {
        snprintf(message, LC_MESSAGE_CAPACITY, "%s", reason[0] ? reason : "unsupported TIFF layout");
        return LC_ERROR;
    }
    TIFFRGBAImage image;
    if (!lib->TIFFRGBAImageBegin(&image, self->tif, 0, reason)) {
        snprintf(message, LC_MESSAGE_CAPACITY, "%s", reason[0] ? reason : "unsupported TIFF layout");
        return LC_ERROR;
    }
    if (image.width != width || image.height != height) {
        lib->TIFFRGBAImageEnd(&image);
        snprintf(message, LC_MESSAGE_CAPACITY, "TIFF image size differs from its header");
        return LC_ERROR;
    }
    // Rows as stored, top first: the orientation is reported and applied like EXIF's.
    image.req_orientation = image.orientation;
    int ok = lib->TIFFRGBAImageGet(&image, (uint32_t *)(void *)out, width, height);
    int alpha = image.alpha;
    lib->TIFFRGBAImageEnd(&image);
    if (!ok) {
        snprintf(message, LC_MESSAGE_CAPACITY, "%s", self->message[0] ? self->message : "invalid TIFF data");
        return LC_ERROR;
    }
    // TIFFRGBAImage packs each pixel as A<<24 | B<<16 | G<<8 | R: R, G, B, A bytes on a
    // little-endian machine, swapped on a big-endian one.
    const uint32_t probe = 1;
    if (*(const uint8_t *)&probe == 0) {
        for (size_t i = 0; i < (size_t)width * height; i++) {
            uint32_t v;
            memcpy(&v, out + i * 4, 4);
            v = __builtin_bswap32(v);
            memcpy(out + i * 4, &v, 4);
        }
    }
    if (alpha) {
        // Straight alpha, as every Bitmap: TIFFRGBAImage gives it associated.
        for (size_t i = 0; i < (size_t)width * height; i++) {
            uint8_t *p = out + i * 4;
            unsigned a = p[3];
            if (a == 0 || a == 255) continue;
            for (int c = 0; c < 3; c++) {
                unsigned v = (p[c] * 255u + a / 2) / a;
                p[c] = (uint8_t)(v > 255 ? 255 : v);
            }
        }
    }
    return LC_OK;
}

int lc_tiff_decode16(lc_tiff *self, uint16_t *out, uint32_t width, uint32_t height, char *message) {
    const lc_tiff_functions *lib = self->lib;
    uint16_t samples = 0, photometric = 0;
    if (!is_plain_rgb16(self) || !lib->TIFFGetField(self->tif, TIFFTAG_SAMPLESPERPIXEL, &samples)
        || !lib->TIFFGetField(self->tif, TIFFTAG_PHOTOMETRIC, &photometric)
        || lib->TIFFScanlineSize64(self->tif) != (uint64_t)width * samples * 2) {
        snprintf(message, LC_MESSAGE_CAPACITY, "not a 16-bit RGB or grey TIFF in strips");
        return LC_ERROR;
    }
    uint16_t *row = malloc((size_t)width * samples * 2);
    if (!row) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        return LC_ERROR;
    }
    int grey = photometric == PHOTOMETRIC_MINISBLACK, colors = grey ? 1 : 3, alpha = samples > colors;
    for (uint32_t y = 0; y < height; y++) {
        if (lib->TIFFReadScanline(self->tif, row, y, 0) < 0) {
            snprintf(message, LC_MESSAGE_CAPACITY, "%s", self->message[0] ? self->message : "invalid TIFF data");
            free(row);
            return LC_ERROR;
        }
        uint16_t *to = out + (size_t)y * width * 4;
        for (uint32_t x = 0; x < width; x++) {
            const uint16_t *from = row + (size_t)x * samples;
            to[4 * x] = from[0];
            to[4 * x + 1] = from[grey ? 0 : 1];
            to[4 * x + 2] = from[grey ? 0 : 2];
            to[4 * x + 3] = alpha ? from[colors] : 0xffff;
        }
    }
    free(row);
    return LC_OK;
}

void lc_tiff_destroy(lc_tiff *self) {
    if (!self) return;
    if (self->tif) self->lib->TIFFClose(self->tif);
    free(self);
}

int lc_tiff_encode(const uint8_t *rgba, uint32_t width, uint32_t height, size_t stride, int has_alpha, int grey,
                   const lc_cancel *cancel, uint8_t **out, size_t *out_size, char *message) {
    *out = NULL;
    *out_size = 0;
    message[0] = '\0';
    const lc_tiff_functions *lib = lc_tiff_functions_load(message);
    if (!lib) return LC_ERROR;
    lc_tiff_stream stream = {0};
    // Grey keeps R of each RGBA pixel (equal to G and B), then alpha.
    uint16_t colors = grey ? 1 : 3, samples = colors + (has_alpha ? 1 : 0);
    size_t row_bytes = (size_t)width * samples;
    char error[LC_MESSAGE_CAPACITY] = "";
    // The writer's own allocations are a row or a strip of this image.
    TIFF *tif = open_stream(lib, "w", &stream, row_bytes * 64 + (1 << 20), error);
    if (!tif) return lc_output_buffer_finish(&stream.output, LC_ERROR, error, out, out_size, message);
    uint8_t *row = malloc(row_bytes);
    int status = row ? LC_OK : LC_ERROR;
    if (!row) snprintf(error, sizeof error, "out of memory");
    uint16_t extra = EXTRASAMPLE_UNASSALPHA;
    if (status == LC_OK
        && !(lib->TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, width) && lib->TIFFSetField(tif, TIFFTAG_IMAGELENGTH, height)
             && lib->TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8) && lib->TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, samples)
             && lib->TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, grey ? PHOTOMETRIC_MINISBLACK : PHOTOMETRIC_RGB)
             && lib->TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG)
             && lib->TIFFSetField(tif, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT)
             // Deflate with the horizontal predictor: lossless, and read by every TIFF reader
             // of the last twenty years.
             && lib->TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE)
             && lib->TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL)
             && lib->TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, lib->TIFFDefaultStripSize(tif, 0))
             && (!has_alpha || lib->TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, &extra)))) {
        status = LC_ERROR;
    }
    for (uint32_t y = 0; status == LC_OK && y < height; y++) {
        if ((y & 63) == 0 && lc_encode_cancelled(cancel, error)) {
            status = LC_CANCELLED;
            break;
        }
        const uint8_t *source = rgba + (size_t)y * stride;
        if (samples == 4) {
            memcpy(row, source, row_bytes);
        } else {
            for (uint32_t x = 0; x < width; x++) {
                uint8_t *pixel = row + (size_t)x * samples;
                const uint8_t *from = source + (size_t)x * 4;
                memcpy(pixel, from, colors);
                if (has_alpha) pixel[colors] = from[3];
            }
        }
        if (lib->TIFFWriteScanline(tif, row, y, 0) < 0) status = LC_ERROR;
    }
    if (status == LC_OK && !lib->TIFFWriteDirectory(tif)) status = LC_ERROR;
    lib->TIFFClose(tif);
    free(row);
    if (status == LC_OK && stream.failure) {
        snprintf(error, sizeof error, "%s", stream.failure);
        status = LC_ERROR;
    }
    if (status == LC_ERROR && error[0] == '\0') snprintf(error, sizeof error, "libtiff could not write the image");
    return lc_output_buffer_finish(&stream.output, status, error, out, out_size, message);
}
