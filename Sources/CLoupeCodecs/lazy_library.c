// See lazy_library.h.
#include "lazy_library.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

const char *lc_lazy_library_name(const lc_lazy_library *library) {
    return library->override ? library->override : library->candidates[0];
}

void lc_lazy_library_open(lc_lazy_library *library) {
    library->attempted = 1;
    const char *const overridden[] = {library->override, NULL};
    const char *const *candidates = library->override ? overridden : library->candidates;
    void *handle = NULL;
    // RTLD_NOW: an unresolvable dependency fails here, once, not in the middle of a decode.
    // RTLD_LOCAL: the library's symbols (and its codecs') stay out of the global namespace,
    // where they could otherwise satisfy some later library's lookups.
    for (size_t i = 0; candidates[i] && !handle; i++) handle = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        // dlerror names only the last candidate tried; the first is the one that should exist.
        const char *reason = dlerror();
        snprintf(library->error, sizeof library->error, "%s cannot be loaded (%s)", lc_lazy_library_name(library),
                 reason ? reason : "not found");
        library->status = LC_ERROR;
        return;
    }
    library->status = LC_OK;
    library->bind(library, handle);
    // A missing symbol leaves the handle open: nothing in it is ever called, and closing it
    // would only run its codecs' static destructors.
}

void *lc_lazy_library_symbol(lc_lazy_library *library, void *handle, const char *name) {
    void *address = dlsym(handle, name);
    if (!address && library->status == LC_OK) {
        snprintf(library->error, sizeof library->error, "%s has no %s (older than the headers Loupe was built with)",
                 lc_lazy_library_name(library), name);
        library->status = LC_ERROR;
    }
    return address;
}

int lc_lazy_library_load(lc_lazy_library *library, void (*open_once)(void), char *message) {
    pthread_once(&library->once, open_once);
    if (library->status == LC_OK) return LC_OK;
    if (message) snprintf(message, LC_MESSAGE_CAPACITY, "%s", library->error);
    return LC_ERROR;
}
