// See encoder_setup.h.
#include "encoder_setup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CLoupeCodecs.h"

void *lc_encoder_state(size_t size, char *message) {
    void *state = calloc(1, size);
    if (!state) snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
    return state;
}

const char *lc_output_buffer_reserve(lc_output_buffer *buffer, size_t length) {
    if (length <= buffer->capacity - buffer->size) return NULL;
    size_t capacity = buffer->capacity ? buffer->capacity : 64 * 1024;
    while (length > capacity - buffer->size) {
        if (capacity > SIZE_MAX / 2) return "output too large";
        capacity *= 2;
    }
    uint8_t *grown = realloc(buffer->bytes, capacity);
    if (!grown) return "out of memory";
    buffer->bytes = grown;
    buffer->capacity = capacity;
    return NULL;
}

int lc_output_buffer_finish(lc_output_buffer *buffer, int status, const char *error, uint8_t **out, size_t *out_size,
                            char *message) {
    if (status == LC_OK) {
        *out = buffer->bytes;
        *out_size = buffer->size;
    } else {
        snprintf(message, LC_MESSAGE_CAPACITY, "%s", error);
        free(buffer->bytes);
    }
    buffer->bytes = NULL;
    return status;
}

int lc_output_copy(const void *bytes, size_t size, uint8_t **out, size_t *out_size, char *message) {
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        return LC_ERROR;
    }
    if (size) memcpy(copy, bytes, size);
    *out = copy;
    *out_size = size;
    return LC_OK;
}
