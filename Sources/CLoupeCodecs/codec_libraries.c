// libheif, libavif, libjxl, libtiff and librsvg, loaded on first use (see lazy_library.h for why, and
// codec_libraries.h for the functions each table holds).
#include "lazy_library.h"

#include <stdlib.h>
#include <string.h>

#include "codec_libraries.h"

#define LC_STRINGIFY_(x) #x
#define LC_STRINGIFY(x) LC_STRINGIFY_(x)

// The SONAME matching the headers compiled against comes first: a library of another ABI
// under the unversioned name (a newer -dev package) is then never picked when the right one is
// installed. The unversioned name is the fallback, and the only name where the version does
// not tell the SONAME.

// libheif keeps SONAME libheif.so.1 across 1.x.
#if (LIBHEIF_NUMERIC_VERSION >> 24) == 1
#define LC_HEIF_SONAME "libheif.so.1"
#else
#define LC_HEIF_SONAME "libheif.so"
#endif

// libavif's SONAME counts ABI changes, not versions: 0.11.x is libavif.so.15 (Debian 12); for
// other versions only the unversioned name, which the same -dev package as the headers provides.
#if AVIF_VERSION_MAJOR == 0 && AVIF_VERSION_MINOR == 11
#define LC_AVIF_SONAME "libavif.so.15"
#else
#define LC_AVIF_SONAME "libavif.so"
#endif

// libjxl 0.x is libjxl.so.0.<minor> (0.7: libjxl.so.0.7); from 1.0, libjxl.so.<major>. The
// shim uses no parallel runner, so libjxl_threads is not needed.
#include <jxl/version.h>
#if JPEGXL_MAJOR_VERSION == 0
#define LC_JXL_SONAME "libjxl.so.0." LC_STRINGIFY(JPEGXL_MINOR_VERSION)
#else
#define LC_JXL_SONAME "libjxl.so." LC_STRINGIFY(JPEGXL_MAJOR_VERSION)
#endif

// libtiff 4.x: libtiff.so.6 from 4.5 (whose per-handle error handlers the shim needs).
#define LC_TIFF_SONAME "libtiff.so.6"

// librsvg 2.x: librsvg-2.so.2 (rsvg_handle_get_intrinsic_size_in_pixels needs 2.52).
#define LC_RSVG_SONAME "librsvg-2.so.2"

static lc_heif_functions heif_table;
static lc_avif_functions avif_table;
static lc_jxl_functions jxl_table;
static lc_tiff_functions tiff_table;
static lc_rsvg_functions rsvg_table;

static void heif_bind(lc_lazy_library *library, void *handle) {
    lc_heif_functions *table = &heif_table;
    LC_HEIF_FUNCTIONS(LC_LAZY_BIND)
}

static void avif_bind(lc_lazy_library *library, void *handle) {
    lc_avif_functions *table = &avif_table;
    LC_AVIF_FUNCTIONS(LC_LAZY_BIND)
}

static void jxl_bind(lc_lazy_library *library, void *handle) {
    lc_jxl_functions *table = &jxl_table;
    LC_JXL_FUNCTIONS(LC_LAZY_BIND)
}

static void tiff_bind(lc_lazy_library *library, void *handle) {
    lc_tiff_functions *table = &tiff_table;
    LC_TIFF_FUNCTIONS(LC_LAZY_BIND)
}

static void rsvg_bind(lc_lazy_library *library, void *handle) {
    lc_rsvg_functions *table = &rsvg_table;
    LC_RSVG_FUNCTIONS(LC_LAZY_BIND)
}

// Indexed by lc_codec_library.
static lc_lazy_library libraries[] = {
    LC_LAZY_LIBRARY_INIT(LC_HEIF_SONAME, "libheif.so", heif_bind),
    LC_LAZY_LIBRARY_INIT(LC_AVIF_SONAME, "libavif.so", avif_bind),
    LC_LAZY_LIBRARY_INIT(LC_JXL_SONAME, "libjxl.so", jxl_bind),
    LC_LAZY_LIBRARY_INIT(LC_TIFF_SONAME, "libtiff.so", tiff_bind),
    LC_LAZY_LIBRARY_INIT(LC_RSVG_SONAME, "librsvg-2.so", rsvg_bind),
};

// pthread_once routines take no argument: one per library.
static void heif_open(void) { lc_lazy_library_open(&libraries[LC_LIBRARY_HEIF]); }
static void avif_open(void) { lc_lazy_library_open(&libraries[LC_LIBRARY_AVIF]); }
static void jxl_open(void) { lc_lazy_library_open(&libraries[LC_LIBRARY_JXL]); }
static void tiff_open(void) { lc_lazy_library_open(&libraries[LC_LIBRARY_TIFF]); }
static void rsvg_open(void) { lc_lazy_library_open(&libraries[LC_LIBRARY_SVG]); }
static void (*const open_once[])(void) = {heif_open, avif_open, jxl_open, tiff_open, rsvg_open};

static int valid(lc_codec_library library) {
    return (unsigned)library < sizeof libraries / sizeof libraries[0];
}

int lc_codec_library_load(lc_codec_library library, char *message) {
    if (!valid(library)) return LC_ERROR;
    return lc_lazy_library_load(&libraries[library], open_once[library], message);
}

const char *lc_codec_library_name(lc_codec_library library) {
    return valid(library) ? lc_lazy_library_name(&libraries[library]) : "";
}

int lc_codec_library_override_for_testing(lc_codec_library library, const char *file_name) {
    if (!valid(library) || libraries[library].attempted) return LC_ERROR;
    char *copy = strdup(file_name);
    if (!copy) return LC_ERROR;
    free(libraries[library].override);
    libraries[library].override = copy;
    return LC_OK;
}

const lc_heif_functions *lc_heif_functions_load(char *message) {
    return lc_codec_library_load(LC_LIBRARY_HEIF, message) == LC_OK ? &heif_table : NULL;
}

const lc_avif_functions *lc_avif_functions_load(char *message) {
    return lc_codec_library_load(LC_LIBRARY_AVIF, message) == LC_OK ? &avif_table : NULL;
}

const lc_jxl_functions *lc_jxl_functions_load(char *message) {
    return lc_codec_library_load(LC_LIBRARY_JXL, message) == LC_OK ? &jxl_table : NULL;
}

const lc_tiff_functions *lc_tiff_functions_load(char *message) {
    return lc_codec_library_load(LC_LIBRARY_TIFF, message) == LC_OK ? &tiff_table : NULL;
}

const lc_rsvg_functions *lc_rsvg_functions_load(char *message) {
    return lc_codec_library_load(LC_LIBRARY_SVG, message) == LC_OK ? &rsvg_table : NULL;
}
