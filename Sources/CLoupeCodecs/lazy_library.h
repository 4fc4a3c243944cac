// A shared library opened the first time it is needed rather than linked.
//
// Why: libheif, libavif and libjxl bring their codecs with them (x265, libde265, aom, dav1d,
// rav1e, SVT-AV1, libgav1, highway, brotli…): mapping and relocating them, and running their
// static initialisers, cost every process ~8 ms of start-up CPU, whether or not it ever saw
// such a file. Opened lazily, only a process that decodes or encodes one of those formats pays,
// and a deployment may leave a library out: its format then fails with a typed error. libtiff
// (with libjbig, liblerc, libzstd, liblzma) is opened the same way for the same reasons, and so
// is librsvg (with cairo, pango, fontconfig, GLib and gdk-pixbuf).
//
// Each library is an lc_lazy_library (its candidate file names) plus a table of the functions
// the shim calls, filled by a `bind` function (see codec_libraries.c); pthread_once makes the
// attempt exactly once per process, and the table is only read after it. Internal to
// CLoupeCodecs (not in include/).
#ifndef LC_LAZY_LIBRARY_H
#define LC_LAZY_LIBRARY_H

#include <pthread.h>

#include "CLoupeCodecs.h"

typedef struct lc_lazy_library lc_lazy_library;

struct lc_lazy_library {
    /// File names tried in order with dlopen, NULL-terminated: the SONAME matching the headers
    /// the shim was compiled against, then the unversioned development symlink.
    const char *candidates[3];
    /// Resolves the table's functions with lc_lazy_library_symbol; called once, after dlopen.
    void (*bind)(lc_lazy_library *library, void *handle);
    pthread_once_t once;
    /// 1 once the load has been attempted (for the test override's check).
    int attempted;
    /// Set before `once` completes, read only after it: LC_OK, or LC_ERROR with `error`.
    int status;
    char error[LC_MESSAGE_CAPACITY];
    /// Tests only (lc_codec_library_override_for_testing): replaces `candidates` when set
    /// before the first load.
    char *override;
};

#define LC_LAZY_LIBRARY_INIT(first, second, bind_function) \
    { {(first), (second), NULL}, (bind_function), PTHREAD_ONCE_INIT, 0, LC_ERROR, "", NULL }

/// The body of a library's pthread_once routine (which takes no argument, hence one small
/// wrapper per library): dlopen (RTLD_NOW | RTLD_LOCAL) over the candidates, then `bind`.
void lc_lazy_library_open(lc_lazy_library *library);

/// For `bind`: the address of `name`, or NULL, the library then marked failed naming the
/// first missing symbol (an older library than the headers).
void *lc_lazy_library_symbol(lc_lazy_library *library, void *handle, const char *name);

/// Runs `open_once` through the library's pthread_once; LC_OK once the table is usable, else
/// LC_ERROR with the reason (which names the library) copied into `message`.
int lc_lazy_library_load(lc_lazy_library *library, void (*open_once)(void), char *message);

/// The file name reported for the library: the first candidate (or the test override).
const char *lc_lazy_library_name(const lc_lazy_library *library);

/// Declares a table member with the type of the real prototype, so that a signature the shim
/// disagrees with is a compile error, not a wrong call.
#define LC_LAZY_MEMBER(function) __typeof__(&function) function;
/// Resolves one member inside a `bind` function whose locals are `library`, `handle`, `table`.
#define LC_LAZY_BIND(function) \
    table->function = (__typeof__(&function))lc_lazy_library_symbol(library, handle, #function);

#endif
