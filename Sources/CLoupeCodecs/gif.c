// giflib decoding plus the frame compositor giflib leaves to its callers (see CLoupeCodecs.h).
//
// Compositing follows what browsers do (and what the gif-test-suite expects): the canvas
// starts fully transparent; a frame draws its opaque pixels inside its rectangle, clipped to
// the canvas; disposal "restore to background" clears the frame's rectangle to transparent
// and "restore to previous" puts back the canvas as it was before that frame.
#include "CLoupeCodecs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gif_lib.h>

typedef struct {
    const uint8_t *data;
    size_t size;
    size_t offset;
} lc_reader;

static int read_from_memory(GifFileType *gif, GifByteType *out, int length) {
    lc_reader *reader = (lc_reader *)gif->UserData;
    if (length <= 0) return 0;
    size_t available = reader->size - reader->offset;
    size_t n = (size_t)length < available ? (size_t)length : available;
    memcpy(out, reader->data + reader->offset, n);
    reader->offset += n;
    return (int)n;
}

static void set_message(char *message, const char *what, int code) {
    const char *text = GifErrorString(code);
    snprintf(message, LC_MESSAGE_CAPACITY, "%s: %s", what, text ? text : "unknown giflib error");
}

static GifFileType *open_gif(lc_reader *reader, char *message) {
    int error = 0;
    GifFileType *gif = DGifOpen(reader, read_from_memory, &error);
    if (!gif) set_message(message, "GIF header", error);
    return gif;
}

static void close_gif(GifFileType *gif) {
    int error = 0;
    if (gif) DGifCloseFile(gif, &error);
}

// Reads one extension block; reports NETSCAPE2.0 loop counts and graphics control blocks.
static int read_extension(GifFileType *gif, int *loop_count, GraphicsControlBlock *gcb, int *has_gcb) {
    int code = 0;
    GifByteType *block = NULL;
    if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) return GIF_ERROR;
    int application = 0;
    int index = 0;
    while (block) {
        if (code == GRAPHICS_EXT_FUNC_CODE && index == 0 && gcb) {
            if (DGifExtensionToGCB(block[0], block + 1, gcb) == GIF_OK) *has_gcb = 1;
        } else if (code == APPLICATION_EXT_FUNC_CODE && index == 0) {
            application = block[0] == 11 && (memcmp(block + 1, "NETSCAPE2.0", 11) == 0 || memcmp(block + 1, "ANIMEXTS1.0", 11) == 0);
        } else if (application && index == 1 && loop_count && block[0] >= 3 && block[1] == 1) {
            *loop_count = block[2] | (block[3] << 8);
        }
        index++;
        if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return GIF_ERROR;
    }
    return GIF_OK;
}

int lc_gif_scan(const uint8_t *data, size_t size, uint32_t max_frames, lc_gif_info *info, char *message) {
    lc_reader reader = {data, size, 0};
    GifFileType *gif = open_gif(&reader, message);
    if (!gif) return LC_ERROR;
    memset(info, 0, sizeof *info);
    info->width = (uint32_t)gif->SWidth;
    info->height = (uint32_t)gif->SHeight;
    info->loop_count = -1;
    int status = LC_OK;
    GifRecordType type = UNDEFINED_RECORD_TYPE;
    // Walk the records without decompressing: image data is skipped as raw code blocks.
    // A file cut short after at least one complete frame still counts the frames it has,
    // which is how browsers and libvips treat truncated animations.
    do {
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) {
            if (info->frame_count == 0) { set_message(message, "GIF record", gif->Error); status = LC_ERROR; }
            break;
        }
        if (type == IMAGE_DESC_RECORD_TYPE) {
            if (DGifGetImageDesc(gif) == GIF_ERROR) {
                if (info->frame_count == 0) { set_message(message, "GIF image descriptor", gif->Error); status = LC_ERROR; }
                break;
            }
            if (gif->Image.Interlace) info->interlaced = 1;
            int code_size = 0;
            GifByteType *block = NULL;
            int ok = DGifGetCode(gif, &code_size, &block) != GIF_ERROR;
            while (ok && block) ok = DGifGetCodeNext(gif, &block) != GIF_ERROR;
            info->frame_count++;
            if (!ok || info->frame_count > max_frames) break;
        } else if (type == EXTENSION_RECORD_TYPE) {
            if (read_extension(gif, &info->loop_count, NULL, NULL) == GIF_ERROR) {
                if (info->frame_count == 0) { set_message(message, "GIF extension", gif->Error); status = LC_ERROR; }
                break;
            }
        }
    } while (type != TERMINATE_RECORD_TYPE);
    close_gif(gif);
    if (status == LC_OK && info->frame_count == 0) {
        snprintf(message, LC_MESSAGE_CAPACITY, "GIF has no image");
        status = LC_ERROR;
    }
    return status;
}

struct lc_gif {
    lc_reader reader;
    GifFileType *gif;
    uint32_t width;
    uint32_t height;
    uint8_t *canvas;
    uint8_t *previous;  // canvas before the last frame, for DISPOSE_PREVIOUS
    GifPixelType *line;
    // Disposal owed by the last frame, applied before the next one draws.
    int pending_disposal;
    int pending_left, pending_top, pending_width, pending_height;
    int finished;
    int frames_done;
};

lc_gif *lc_gif_create(const uint8_t *data, size_t size, char *message) {
    lc_gif *self = calloc(1, sizeof *self);
    if (!self) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        return NULL;
    }
    self->reader = (lc_reader){data, size, 0};
    self->gif = open_gif(&self->reader, message);
    if (!self->gif) {
        free(self);
        return NULL;
    }
    self->width = (uint32_t)self->gif->SWidth;
    self->height = (uint32_t)self->gif->SHeight;
    return self;
}

// Clips a frame rectangle to the canvas; returns 0 when nothing is left.
static int clip(const lc_gif *self, int *left, int *top, int *width, int *height) {
    int x0 = *left < 0 ? 0 : *left, y0 = *top < 0 ? 0 : *top;
    long x1 = (long)*left + *width, y1 = (long)*top + *height;
    if (x1 > (long)self->width) x1 = (long)self->width;
    if (y1 > (long)self->height) y1 = (long)self->height;
    if (x1 <= x0 || y1 <= y0) return 0;
    *left = x0; *top = y0; *width = (int)(x1 - x0); *height = (int)(y1 - y0);
    return 1;
}

static void apply_pending_disposal(lc_gif *self) {
    size_t canvas_size = (size_t)self->width * self->height * 4;
    if (self->pending_disposal == DISPOSE_BACKGROUND) {
        int left = self->pending_left, top = self->pending_top, width = self->pending_width, height = self->pending_height;
        if (clip(self, &left, &top, &width, &height)) {
            for (int y = top; y < top + height; y++) {
                memset(self->canvas + ((size_t)y * self->width + (size_t)left) * 4, 0, (size_t)width * 4);
            }
        }
    } else if (self->pending_disposal == DISPOSE_PREVIOUS && self->previous) {
        memcpy(self->canvas, self->previous, canvas_size);
    }
    self->pending_disposal = DISPOSAL_UNSPECIFIED;
}

// Decodes the current image's rows and draws them. Rows that fail to decode (truncated or
// corrupt data) leave the canvas as it was; `*complete` says whether every row arrived and
// `*decoded` counts the pixels that did.
static int draw_image(lc_gif *self, const GraphicsControlBlock *gcb, int *complete, size_t *decoded, char *message) {
    GifFileType *gif = self->gif;
    GifImageDesc *desc = &gif->Image;
    ColorMapObject *map = desc->ColorMap ? desc->ColorMap : gif->SColorMap;
    int frame_width = desc->Width, frame_height = desc->Height;
    *complete = 1;
    *decoded = 0;
    if (frame_width <= 0 || frame_height <= 0) return LC_OK;
    free(self->line);
    self->line = malloc((size_t)frame_width);
    if (!self->line) {
        snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
        return LC_ERROR;
    }
    int colors = map ? map->ColorCount : 0;
    // Pre-filling each row with an index past the colour table marks pixels a truncated row
    // never received; they are skipped like transparent ones.
    GifPixelType unset = (GifPixelType)(colors < 256 ? colors : 0);
    int can_mark_unset = colors < 256;
    int transparent = gcb->TransparentColor;
    static const int offsets[4] = {0, 4, 2, 1}, steps[4] = {8, 8, 4, 2};
    int passes = desc->Interlace ? 4 : 1;
    for (int pass = 0; pass < passes; pass++) {
        int start = desc->Interlace ? offsets[pass] : 0, step = desc->Interlace ? steps[pass] : 1;
        for (int row = start; row < frame_height; row += step) {
            memset(self->line, unset, (size_t)frame_width);
            int ok = DGifGetLine(gif, self->line, frame_width) != GIF_ERROR;
            if (!ok && !can_mark_unset) {  // cannot tell decoded pixels apart: drop the row
                *complete = 0;
                return LC_OK;
            }
            long y = (long)desc->Top + row;
            if (y >= 0 && y < (long)self->height) {
                uint8_t *out = self->canvas + (size_t)y * self->width * 4;
                for (int column = 0; column < frame_width; column++) {
                    long x = (long)desc->Left + column;
                    GifPixelType index = self->line[column];
                    if (ok || index != unset) (*decoded)++;
                    if (x < 0 || x >= (long)self->width || index == transparent) continue;
                    if (index >= colors) {
                        if (!ok) continue;  // never decoded
                        snprintf(message, LC_MESSAGE_CAPACITY, "GIF pixel index %d outside a %d-colour table", index, colors);
                        return LC_ERROR;
                    }
                    GifColorType color = map->Colors[index];
                    uint8_t *p = out + (size_t)x * 4;
                    p[0] = color.Red; p[1] = color.Green; p[2] = color.Blue; p[3] = 255;
                }
            }
            if (!ok) {
                *complete = 0;
                return LC_OK;
            }
        }
    }
    return LC_OK;
}

int lc_gif_next_frame(lc_gif *self, uint8_t *out, size_t stride, int *delay_cs, char *message) {
    if (self->finished) return 0;
    GifFileType *gif = self->gif;
    size_t canvas_size = (size_t)self->width * self->height * 4;
    if (!self->canvas) {
        self->canvas = calloc(1, canvas_size ? canvas_size : 1);
        if (!self->canvas) {
            snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
            return LC_ERROR;
        }
    }
    GraphicsControlBlock gcb = {DISPOSAL_UNSPECIFIED, 0, 0, NO_TRANSPARENT_COLOR};
    int has_gcb = 0;
    GifRecordType type = UNDEFINED_RECORD_TYPE;
    for (;;) {
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) {
            // Truncated after a complete frame: the frames so far are the animation.
            self->finished = 1;
            return 0;
        }
        if (type == TERMINATE_RECORD_TYPE) {
            self->finished = 1;
            return 0;
        }
        if (type == EXTENSION_RECORD_TYPE) {
            if (read_extension(gif, NULL, &gcb, &has_gcb) == GIF_ERROR) {
                self->finished = 1;
                return 0;
            }
            continue;
        }
        if (type != IMAGE_DESC_RECORD_TYPE) continue;
        if (DGifGetImageDesc(gif) == GIF_ERROR) {
            // As in lc_gif_scan: a broken descriptor after complete frames ends the animation.
            self->finished = 1;
            if (self->frames_done > 0) return 0;
            set_message(message, "GIF image descriptor", gif->Error);
            return LC_ERROR;
        }
        apply_pending_disposal(self);
        if (gcb.DisposalMode == DISPOSE_PREVIOUS) {
            if (!self->previous) self->previous = malloc(canvas_size ? canvas_size : 1);
            if (!self->previous) {
                snprintf(message, LC_MESSAGE_CAPACITY, "out of memory");
                return LC_ERROR;
            }
            memcpy(self->previous, self->canvas, canvas_size);
        }
        int complete = 1;
        size_t decoded = 0;
        if (draw_image(self, &gcb, &complete, &decoded, message) != LC_OK) return LC_ERROR;
        if (!complete) {
            // A frame cut short keeps what it received (browsers show it) and ends the
            // animation; one that received nothing is no frame: an error if it was the first.
            self->finished = 1;
            if (decoded == 0) {
                if (self->frames_done > 0) return 0;
                set_message(message, "GIF image data", gif->Error);
                return LC_ERROR;
            }
        }
        self->frames_done++;
        self->pending_disposal = gcb.DisposalMode;
        self->pending_left = gif->Image.Left;
        self->pending_top = gif->Image.Top;
        self->pending_width = gif->Image.Width;
        self->pending_height = gif->Image.Height;
        *delay_cs = gcb.DelayTime;
        size_t row = (size_t)self->width * 4;
        for (uint32_t y = 0; y < self->height; y++) memcpy(out + (size_t)y * stride, self->canvas + (size_t)y * row, row);
        return 1;
    }
}

void lc_gif_destroy(lc_gif *self) {
    if (!self) return;
    close_gif(self->gif);
    free(self->canvas);
    free(self->previous);
    free(self->line);
    free(self);
}
