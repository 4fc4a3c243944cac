// The encoders' shared setup (jpeg.c, png.c, gif_encode.c, avif.c, webp_anim_encode.c): their state's allocation, and their output — one
// buffer that doubles as the library writes into it, handed to the caller on success and freed
// on failure. Internal to CLoupeCodecs (not in include/, so Swift never sees it).
#ifndef LC_ENCODER_SETUP_H
#define LC_ENCODER_SETUP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "CLoupeCodecs.h"

// Whether `cancel` (may be NULL) asks the encode to stop; sets "cancelled" in `message` when so.
static inline int lc_encode_cancelled(const lc_cancel *cancel, char *message) {
    if (!cancel || !cancel->is_cancelled || !cancel->is_cancelled(cancel->context)) return 0;
    message[0] = 0;
    strncat(message, "cancelled", LC_MESSAGE_CAPACITY - 1);
    return 1;
}

// An encoder's state of `size` bytes, zeroed; NULL, with "out of memory" in `message`, when it
// cannot be had.
void *lc_encoder_state(size_t size, char *message);

typedef struct {
    uint8_t *bytes;
    size_t size;      // bytes written
    size_t capacity;  // bytes allocated
} lc_output_buffer;

// Makes room for `length` more bytes after `size`: the capacity doubles from 64 KiB until they
// fit. Returns NULL on success, else why not ("out of memory", "output too large"); on failure
// the buffer is as it was, so the error path still frees the live allocation.
const char *lc_output_buffer_reserve(lc_output_buffer *buffer, size_t length);

// Ends an encode: on LC_OK hands the bytes to the caller (`*out`, freed with lc_free), else
// copies `error` into `message` and frees them. Returns `status`.
int lc_output_buffer_finish(lc_output_buffer *buffer, int status, const char *error, uint8_t **out, size_t *out_size,
                            char *message);

// Hands the caller a malloc'd copy of `size` bytes (`*out`, freed with lc_free), for encoders
// whose library allocates the output its own way; LC_ERROR with "out of memory" in `message`
// when the copy cannot be had.
int lc_output_copy(const void *bytes, size_t size, uint8_t **out, size_t *out_size, char *message);

#endif
