// Colour management with lcms2 (see CLoupeCodecs.h, "Colour").
//
// Every transform gets its own lcms2 context, whose error handler copies lcms2's message into
// the caller's buffer while the profile is parsed and the transform built; nothing is printed
// and nothing is global. Transforms are built with cmsFLAGS_NOCACHE, which makes
// cmsDoTransform safe to call from several threads on one transform (lcms2's documentation:
// the one-pixel cache is the only state a transform mutates).
#include "CLoupeCodecs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lcms2.h>

// The arithmetic lcms2 itself runs for an 8-bit RGB matrix/TRC profile to a matrix/TRC
// output (its OptimizeMatrixShaper: first shaper to 1.14 fixed point, 3x3 matrix in 1.14,
// clip, 16385-entry second shaper), without lcms2's per-pixel unpacking to 16-bit words,
// function pointers and repacking, which cost it 10-20x this loop on 8-bit RGBA. The matrix
// is folded into the first shaper: product[row][channel][value] is the matrix entry times the
// channel's shaped value, so a pixel costs nine lookups and adds instead of nine multiplies
// (the same integers, so the same bytes; 1.45x faster measured in isolation).
typedef struct {
    int64_t product[3][3][256];
    uint8_t second[3][16385];
} lc_matrix_shaper;

struct lc_color_transform {
    cmsContext context;
    cmsHTRANSFORM transform;
    int pixels;
    // Grey sources go through a 256-entry table (grey value -> sRGB triple), built once from
    // the transform: every grey pixel then costs a lookup and stays neutral.
    uint8_t grey_table[256 * 3];
    // Set only when it gave lcms2's bytes for every probe colour (see use_matrix_shaper).
    lc_matrix_shaper *matrix_shaper;
    // RGBA16 in place, for PNG's gAMA/cHRM colours (lc_color_transform_create_rgb): made with
    // the 8-bit one, so a 16-bit PNG keeps its depth through the conversion. NULL otherwise.
    cmsHTRANSFORM transform16;
};

typedef struct {
    char *message;
} lc_color_log;

static void on_lcms_error(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)code;
    lc_color_log *log = (lc_color_log *)cmsGetContextUserData(context);
    // Keep the first message: later ones are usually consequences of it.
    if (log && log->message && log->message[0] == 0) snprintf(log->message, LC_MESSAGE_CAPACITY, "%s", text);
}

static cmsContext make_context(lc_color_log *log) {
    cmsContext context = cmsCreateContext(NULL, log);
    if (context) cmsSetLogErrorHandlerTHR(context, on_lcms_error);
    return context;
}

static void fail(char *message, const char *text) {
    if (message && message[0] == 0) snprintf(message, LC_MESSAGE_CAPACITY, "%s", text);
}

// The sRGB transfer function (IEC 61966-2-1), for comparing a profile's curves with it.
static double srgb_curve(double v) {
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

// A matrix/TRC RGB profile whose colorants and curves are sRGB's (within what 8-bit output
// can tell apart) converts to sRGB as the identity, so it needs no transform. Profiles in the
// wild differ in their bytes (v2 and v4, HP's, Apple's, Google's compact one) but not here.
static int is_srgb(cmsContext context, cmsHPROFILE profile) {
    if (cmsGetColorSpace(profile) != cmsSigRgbData) return 0;
    cmsHPROFILE reference = cmsCreate_sRGBProfileTHR(context);
    if (!reference) return 0;
    int same = 1;
    const cmsTagSignature colorants[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    const cmsTagSignature curves[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    for (int i = 0; i < 3 && same; i++) {
        const cmsCIEXYZ *ours = (const cmsCIEXYZ *)cmsReadTag(profile, colorants[i]);
        const cmsCIEXYZ *theirs = (const cmsCIEXYZ *)cmsReadTag(reference, colorants[i]);
        const cmsToneCurve *curve = (const cmsToneCurve *)cmsReadTag(profile, curves[i]);
        if (!ours || !theirs || !curve) { same = 0; break; }
        // 0.002 in XYZ is far below one 8-bit step for any colour.
        if (fabs(ours->X - theirs->X) > 0.002 || fabs(ours->Y - theirs->Y) > 0.002 || fabs(ours->Z - theirs->Z) > 0.002) {
            same = 0;
            break;
        }
        for (int step = 0; step <= 32 && same; step++) {
            double v = step / 32.0;
            // 0.4 / 255 of linear light: invisible after re-encoding to 8 bits.
            if (fabs(cmsEvalToneCurveFloat(curve, (cmsFloat32Number)v) - srgb_curve(v)) > 0.4 / 255.0) same = 0;
        }
    }
    cmsCloseProfile(reference);
    return same;
}

// Checks the size, makes a context logging into `log` (the caller's: lcms2 keeps a pointer to
// it) and parses the profile. NULL with a message on failure, the context then deleted.
static cmsHPROFILE open_profile(const uint8_t *icc, size_t size, lc_color_log *log, cmsContext *context, char *message) {
    *context = NULL;
    if (!icc || size < 132 || size > UINT32_MAX) {
        fail(message, "ICC profile shorter than its 128-byte header and tag count");
        return NULL;
    }
    *context = make_context(log);
    if (!*context) {
        fail(message, "out of memory");
        return NULL;
    }
    cmsHPROFILE profile = cmsOpenProfileFromMemTHR(*context, icc, (cmsUInt32Number)size);
    if (!profile) {
        fail(message, "unreadable ICC profile");
        cmsDeleteContext(*context);
        *context = NULL;
    }
    return profile;
}

int lc_color_profile_inspect(const uint8_t *icc, size_t size, int *space, int *srgb, char *message) {
    if (message) message[0] = 0;
    *space = LC_COLOR_SPACE_OTHER;
    *srgb = 0;
    lc_color_log log = {message};
    cmsContext context;
    cmsHPROFILE profile = open_profile(icc, size, &log, &context, message);
    if (!profile) return LC_ERROR;
    switch (cmsGetColorSpace(profile)) {
    case cmsSigRgbData: *space = LC_COLOR_SPACE_RGB; break;
    case cmsSigGrayData: *space = LC_COLOR_SPACE_GREY; break;
    case cmsSigCmykData: *space = LC_COLOR_SPACE_CMYK; break;
    default: break;
    }
    *srgb = is_srgb(context, profile);
    cmsCloseProfile(profile);
    cmsDeleteContext(context);
    return LC_OK;
}

static int32_t to_fixed14(double v) { return (int32_t)floor(v * 16384.0 + 0.5); }

static int clip14(int32_t v) { return v < 0 ? 0 : (v > 16384 ? 16384 : v); }

static void matrix_shaper_apply(const lc_matrix_shaper *m, uint8_t *p, uint32_t count) {
    for (uint32_t i = 0; i < count; i++, p += 4) {
        // 64-bit sums: a wide-gamut matrix (ProPhoto to sRGB reaches 2.0) times a curve value
        // near 2.0, three times, leaves int32 (lcms2 sums in int32 and relies on inputs <= 1).
        const uint8_t r = p[0], g = p[1], b = p[2];
        int32_t x = (int32_t)((m->product[0][0][r] + m->product[0][1][g] + m->product[0][2][b] + 0x2000) >> 14);
        int32_t y = (int32_t)((m->product[1][0][r] + m->product[1][1][g] + m->product[1][2][b] + 0x2000) >> 14);
        int32_t z = (int32_t)((m->product[2][0][r] + m->product[2][1][g] + m->product[2][2][b] + 0x2000) >> 14);
        p[0] = m->second[0][clip14(x)];
        p[1] = m->second[1][clip14(y)];
        p[2] = m->second[2][clip14(z)];
    }
}

// Fills the tables from the profiles' colorant and TRC tags the way lcms2 fills its own
// (curves evaluated in float, the output curve sRGB's TRC reversed by cmsReverseToneCurve,
// 8-bit output rounded through 16 bits). NULL when a tag is missing or the matrix is singular.
static lc_matrix_shaper *matrix_shaper_make(cmsHPROFILE source, cmsHPROFILE srgb) {
    static const cmsTagSignature colorants[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    static const cmsTagSignature curves[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    double from[3][3], to[3][3];
    for (int c = 0; c < 3; c++) {
        const cmsCIEXYZ *ours = (const cmsCIEXYZ *)cmsReadTag(source, colorants[c]);
        const cmsCIEXYZ *theirs = (const cmsCIEXYZ *)cmsReadTag(srgb, colorants[c]);
        if (!ours || !theirs) return NULL;
        from[0][c] = ours->X; from[1][c] = ours->Y; from[2][c] = ours->Z;
        to[0][c] = theirs->X; to[1][c] = theirs->Y; to[2][c] = theirs->Z;
    }
    // source RGB -> XYZ (D50) -> sRGB: inverse(to) x from.
    double det = to[0][0] * (to[1][1] * to[2][2] - to[1][2] * to[2][1])
                 - to[0][1] * (to[1][0] * to[2][2] - to[1][2] * to[2][0])
                 + to[0][2] * (to[1][0] * to[2][1] - to[1][1] * to[2][0]);
    if (fabs(det) < 1e-9) return NULL;
    double inverse[3][3];
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
            // Cofactor of (c, r), transposed.
            int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
            inverse[r][c] = (to[r1][c1] * to[r2][c2] - to[r1][c2] * to[r2][c1]) / det;
        }
    }
    int32_t matrix[3][3], first[3][256];
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
            double v = 0;
            for (int k = 0; k < 3; k++) v += inverse[r][k] * from[k][c];
            // Far outside any real pair of RGB spaces; keeps the fixed-point sums in range.
            if (!(fabs(v) < 64)) return NULL;
            matrix[r][c] = to_fixed14(v);
        }
    }
    lc_matrix_shaper *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    for (int c = 0; c < 3; c++) {
        const cmsToneCurve *curve = (const cmsToneCurve *)cmsReadTag(source, curves[c]);
        const cmsToneCurve *output = (const cmsToneCurve *)cmsReadTag(srgb, curves[c]);
        cmsToneCurve *reversed = output ? cmsReverseToneCurve(output) : NULL;
        if (!curve || !reversed) { free(m); return NULL; }
        for (int v = 0; v < 256; v++) {
            cmsFloat32Number y = cmsEvalToneCurveFloat(curve, (cmsFloat32Number)(v / 255.0));
            // Curves stay within 0..1; the bound only keeps a hostile one from overflowing.
            first[c][v] = y < 2.0f ? (y > -2.0f ? to_fixed14(y) : -2 * 16384) : 2 * 16384;
        }
        for (int i = 0; i <= 16384; i++) {
            cmsFloat32Number y = cmsEvalToneCurveFloat(reversed, (cmsFloat32Number)(i / 16384.0));
            if (y < 0) y = 0;
            if (y > 1) y = 1;
            uint16_t word = (uint16_t)floor(y * 65535.0 + 0.5);
            m->second[c][i] = (uint8_t)((word * 65281u + 8388608u) >> 24);
        }
        cmsFreeToneCurve(reversed);
    }
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            for (int v = 0; v < 256; v++) m->product[r][c][v] = (int64_t)matrix[r][c] * first[c][v];
    return m;
}

// Keeps the fast path only if it reproduces lcms2's transform byte for byte on a probe set:
// a 17-level cube and every value of each channel alone and of grey. lcms2 takes other routes
// for some matrix/TRC profiles (a black point that black-point compensation moves, curves it
// joins when the matrix is the identity); those show here and keep lcms2.
static void use_matrix_shaper(lc_color_transform *self, cmsHPROFILE source, cmsHPROFILE srgb) {
    if (self->pixels != LC_PIXELS_RGBA || !cmsIsMatrixShaper(source)
        || cmsIsCLUT(source, INTENT_RELATIVE_COLORIMETRIC, LCMS_USED_AS_INPUT)) return;
    lc_matrix_shaper *m = matrix_shaper_make(source, srgb);
    if (!m) return;
    enum { cube = 17 * 17 * 17, probes = cube + 4 * 256 };
    uint8_t *theirs = malloc(probes * 4), *ours = malloc(probes * 4);
    if (!theirs || !ours) { free(theirs); free(ours); free(m); return; }
    uint32_t n = 0;
    for (int r = 0; r < 17; r++)
        for (int g = 0; g < 17; g++)
            for (int b = 0; b < 17; b++, n++) {
                theirs[4 * n] = (uint8_t)(r * 255 / 16);
                theirs[4 * n + 1] = (uint8_t)(g * 255 / 16);
                theirs[4 * n + 2] = (uint8_t)(b * 255 / 16);
                theirs[4 * n + 3] = (uint8_t)n;
            }
    for (int v = 0; v < 256; v++)
        for (int k = 0; k < 4; k++, n++) {
            theirs[4 * n] = (uint8_t)(k == 0 || k == 3 ? v : 0);
            theirs[4 * n + 1] = (uint8_t)(k == 1 || k == 3 ? v : 0);
            theirs[4 * n + 2] = (uint8_t)(k == 2 || k == 3 ? v : 0);
            theirs[4 * n + 3] = (uint8_t)v;
        }
    memcpy(ours, theirs, probes * 4);
    cmsDoTransform(self->transform, theirs, theirs, probes);
    matrix_shaper_apply(m, ours, probes);
    if (memcmp(ours, theirs, probes * 4) == 0) self->matrix_shaper = m;
    else free(m);
    free(theirs);
    free(ours);
}

int lc_color_transform_is_matrix_shaper(const lc_color_transform *self) { return self->matrix_shaper != NULL; }

static cmsUInt32Number input_format(int pixels) {
    switch (pixels) {
    case LC_PIXELS_GREY: return TYPE_GRAY_8;
    case LC_PIXELS_CMYK: return TYPE_CMYK_8;
    case LC_PIXELS_CMYK_INVERTED: return TYPE_CMYK_8_REV;
    default: return TYPE_RGBA_8;
    }
}

// Takes ownership of `source` (closed here on every path).
static lc_color_transform *make_transform(cmsContext context, cmsHPROFILE source, int pixels, int deep, char *message) {
    lc_color_transform *self = calloc(1, sizeof *self);
    cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(context);
    if (!self || !srgb) {
        fail(message, "out of memory");
        goto failed;
    }
    self->context = context;
    self->pixels = pixels;
    cmsColorSpaceSignature expected = pixels == LC_PIXELS_GREY ? cmsSigGrayData
                                      : (pixels == LC_PIXELS_RGBA ? cmsSigRgbData : cmsSigCmykData);
    if (cmsGetColorSpace(source) != expected) {
        fail(message, "ICC profile's colour space does not match the image's");
        goto failed;
    }
    // RGBA in, RGBA out, alpha copied: the transform runs in place on the decoded bitmap.
    // CMYK fills the same four bytes per pixel, so it runs in place too (alpha is set after).
    cmsUInt32Number out_format = pixels == LC_PIXELS_GREY ? TYPE_RGB_8 : TYPE_RGBA_8;
    cmsUInt32Number flags = cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOCACHE
                            | (pixels == LC_PIXELS_RGBA ? cmsFLAGS_COPY_ALPHA : 0);
    self->transform = cmsCreateTransformTHR(context, source, input_format(pixels), srgb, out_format,
                                            INTENT_RELATIVE_COLORIMETRIC, flags);
    if (!self->transform) {
        fail(message, "lcms2 could not build a transform from this ICC profile");
        goto failed;
    }
    use_matrix_shaper(self, source, srgb);
    if (deep && pixels == LC_PIXELS_RGBA) {
        // Without it the 16-bit samples are converted at 8 bits: not a failure.
        self->transform16 = cmsCreateTransformTHR(context, source, TYPE_RGBA_16, srgb, TYPE_RGBA_16, INTENT_RELATIVE_COLORIMETRIC, flags);
    }
    if (pixels == LC_PIXELS_GREY) {
        uint8_t ramp[256];
        for (int i = 0; i < 256; i++) ramp[i] = (uint8_t)i;
        cmsDoTransform(self->transform, ramp, self->grey_table, 256);
    }
    cmsCloseProfile(source);
    cmsCloseProfile(srgb);
    return self;
failed:
    if (source) cmsCloseProfile(source);
    if (srgb) cmsCloseProfile(srgb);
    if (self && self->transform) cmsDeleteTransform(self->transform);
    if (self && self->transform16) cmsDeleteTransform(self->transform16);
    free(self);
    cmsDeleteContext(context);
    return NULL;
}

lc_color_transform *lc_color_transform_create(const uint8_t *icc, size_t size, int pixels, char *message) {
    if (message) message[0] = 0;
    lc_color_log log = {message};
    cmsContext context;
    cmsHPROFILE source = open_profile(icc, size, &log, &context, message);
    if (!source) return NULL;
    lc_color_transform *self = make_transform(context, source, pixels, 0, message);
    // From here on lcms2 has nothing more to report; its context must not keep a pointer to
    // the caller's (stack) message buffer.
    if (self) cmsSetLogErrorHandlerTHR(context, NULL);
    return self;
}

lc_color_transform *lc_color_transform_create_rgb(double gamma, const double *chromaticities, int transfer, char *message) {
    if (message) message[0] = 0;
    if (transfer == LC_TRANSFER_GAMMA && !(gamma > 0.01 && gamma < 100)) {
        fail(message, "PNG gamma out of range");
        return NULL;
    }
    lc_color_log log = {message};
    cmsContext context = make_context(&log);
    if (!context) {
        fail(message, "out of memory");
        return NULL;
    }
    // PNG's gAMA is the encoding exponent; the decoding curve is its reciprocal. Without cHRM
    // the primaries are sRGB's (ITU-R BT.709, D65), as PNG's specification recommends.
    const double *c = chromaticities;
    const double bt709[8] = {0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06};
    if (!c) c = bt709;
    cmsCIExyY white = {c[0], c[1], 1.0};
    cmsCIExyYTRIPLE primaries = {{c[2], c[3], 1.0}, {c[4], c[5], 1.0}, {c[6], c[7], 1.0}};
    cmsToneCurve *curve;
    if (transfer == LC_TRANSFER_SRGB) {
        // IEC 61966-2-1 as lcms2's parametric curve type 4.
        const cmsFloat64Number srgb[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
        curve = cmsBuildParametricToneCurve(context, 4, srgb);
    } else {
        curve = cmsBuildGamma(context, 1.0 / gamma);
    }
    cmsToneCurve *curves[3] = {curve, curve, curve};
    cmsHPROFILE source = curve ? cmsCreateRGBProfileTHR(context, &white, &primaries, curves) : NULL;
    if (curve) cmsFreeToneCurve(curve);
    if (!source) {
        fail(message, "PNG chromaticities do not make a valid colour space");
        cmsDeleteContext(context);
        return NULL;
    }
    lc_color_transform *self = make_transform(context, source, LC_PIXELS_RGBA, 1, message);
    if (self) cmsSetLogErrorHandlerTHR(context, NULL);
    return self;
}

void lc_color_transform_apply(const lc_color_transform *self, uint8_t *pixels, size_t stride, uint32_t width, uint32_t height) {
    for (uint32_t y = 0; y < height; y++) {
        uint8_t *row = pixels + (size_t)y * stride;
        switch (self->pixels) {
        case LC_PIXELS_GREY:
            // The decoder expanded grey to R = G = B; R is the grey value.
            for (uint32_t x = 0; x < width; x++) {
                const uint8_t *rgb = self->grey_table + 3 * row[4 * x];
                row[4 * x] = rgb[0];
                row[4 * x + 1] = rgb[1];
                row[4 * x + 2] = rgb[2];
            }
            break;
        case LC_PIXELS_CMYK:
        case LC_PIXELS_CMYK_INVERTED:
            cmsDoTransform(self->transform, row, row, width);
            for (uint32_t x = 0; x < width; x++) row[4 * x + 3] = 255;
            break;
        default:
            if (self->matrix_shaper) matrix_shaper_apply(self->matrix_shaper, row, width);
            else cmsDoTransform(self->transform, row, row, width);
            break;
        }
    }
}

int lc_color_transform_apply16(const lc_color_transform *self, uint16_t *pixels, size_t count) {
    if (!self->transform16) return 0;
    // In chunks: cmsDoTransform counts pixels in 32 bits.
    for (size_t done = 0; done < count;) {
        size_t chunk = count - done > (1u << 24) ? (1u << 24) : count - done;
        cmsDoTransform(self->transform16, pixels + 4 * done, pixels + 4 * done, (cmsUInt32Number)chunk);
        done += chunk;
    }
    return 1;
}

void lc_color_transform_destroy(lc_color_transform *self) {
    if (!self) return;
    if (self->transform) cmsDeleteTransform(self->transform);
    if (self->transform16) cmsDeleteTransform(self->transform16);
    if (self->context) cmsDeleteContext(self->context);
    free(self->matrix_shaper);
    free(self);
}

int lc_srgb_profile(uint8_t **out, size_t *size, char *message) {
    if (message) message[0] = 0;
    lc_color_log log = {message};
    cmsContext context = make_context(&log);
    cmsHPROFILE profile = context ? cmsCreate_sRGBProfileTHR(context) : NULL;
    cmsUInt32Number needed = 0;
    int status = LC_ERROR;
    *out = NULL;
    if (profile && cmsSaveProfileToMem(profile, NULL, &needed) && needed > 0 && (*out = malloc(needed))
        && cmsSaveProfileToMem(profile, *out, &needed)) {
        *size = needed;
        status = LC_OK;
    } else {
        fail(message, "lcms2 could not write its sRGB profile");
        free(*out);
        *out = NULL;
    }
    if (profile) cmsCloseProfile(profile);
    if (context) cmsDeleteContext(context);
    return status;
}

void lc_cmyk_to_rgba(uint8_t *pixels, size_t stride, uint32_t width, uint32_t height, int inverted) {
    for (uint32_t y = 0; y < height; y++) {
        uint8_t *row = pixels + (size_t)y * stride;
        for (uint32_t x = 0; x < width; x++) {
            uint8_t *p = row + 4 * x;
            unsigned c = p[0], m = p[1], ye = p[2], k = p[3];
            // Adobe writes inverted CMYK (255 = no ink); plain CMYK is the other way round.
            if (!inverted) { c = 255 - c; m = 255 - m; ye = 255 - ye; k = 255 - k; }
            p[0] = (uint8_t)((c * k + 127) / 255);
            p[1] = (uint8_t)((m * k + 127) / 255);
            p[2] = (uint8_t)((ye * k + 127) / 255);
            p[3] = 255;
        }
    }
}
