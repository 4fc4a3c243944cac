// The C interface of libLoupeVision: the project's shim over OpenCV's C++ API (face and eye
// cascades, corner features) for thumbor's smart crop and `red_eye`.
//
// Why a shim library of its own, opened with dlopen rather than linked: OpenCV 4 has only a C++
// API, and Debian's libopencv_objdetect brings calib3d, dnn and protobuf with it, whose mapping,
// relocation and static initialisers every process would pay whether or not it ever crops a
// face. Built as the dynamic library product `LoupeVision` (libLoupeVision.so, beside the
// `loupe` binary), no Swift target links it: LoupeProcessing's `VisionLibrary` opens it on the
// first smart crop, and a deployment without it (or without OpenCV) gets a typed error and the
// edge-energy fallback instead of a link failure. The interface is plain C types only, so that
// Swift declares the same prototypes without importing C++.
//
// Every function catches OpenCV's exceptions (and std::bad_alloc) and returns LV_ERROR with the
// reason in `message` (LV_MESSAGE_CAPACITY bytes, NUL-terminated); nothing throws across it.
#ifndef LOUPE_VISION_H
#define LOUPE_VISION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LV_ERROR (-1)
#define LV_MESSAGE_CAPACITY 256
/// What lv_interface_version returns: bumped whenever a prototype here changes, so that a
/// library from another build is refused rather than called with the wrong arguments.
#define LV_INTERFACE_VERSION 1

/// LV_INTERFACE_VERSION as the library was built.
int32_t lv_interface_version(void);

/// Runs the Haar or LBP cascade in the file at `cascade_path` over the 8-bit grey image
/// (`width`×`height`, rows `bytes_per_row` apart), as OpenCV's
/// CascadeClassifier::detectMultiScale(image, scale_factor, min_neighbors, minSize = min_side²).
/// Writes up to `capacity` boxes as x, y, width, height quadruples into `boxes` and returns how
/// many were found (which may be more than `capacity`), or LV_ERROR. Each cascade file is loaded
/// once per concurrent caller and kept (a classifier holds per-call state, so one is never used
/// by two threads at once).
int32_t lv_detect_cascade(const char *cascade_path, const uint8_t *grey, int32_t width, int32_t height, int32_t bytes_per_row,
                          double scale_factor, int32_t min_neighbors, int32_t min_side, int32_t *boxes, int32_t capacity,
                          char *message);

/// OpenCV's goodFeaturesToTrack (Shi-Tomasi corners, block size 3) over the grey image: at most
/// `max_corners` corners of quality at least `quality_level` times the best, `min_distance`
/// apart. Writes up to `capacity` x, y pairs into `points` and returns how many were found, or
/// LV_ERROR.
int32_t lv_good_features(const uint8_t *grey, int32_t width, int32_t height, int32_t bytes_per_row, int32_t max_corners,
                         double quality_level, double min_distance, float *points, int32_t capacity, char *message);

/// thumbor's `red_eye()` on the RGBA image (`width`×`height`, rows `bytes_per_row` apart), in
/// place: in each of the `face_count` face boxes of `faces` (x, y, width, height quadruples,
/// clipped to the image), the eyes the cascade at `eye_cascade_path` finds (scale factor 1.2, 3
/// neighbours, at least 20 pixels, on the face's RGB as thumbor passes it); in each eye, the
/// largest region whose red is over twice the mean of green and blue (and over 60), closed and
/// dilated as thumbor does, gets that mean in red, green and blue. Alpha is kept. Returns how
/// many eyes were found, or LV_ERROR.
int32_t lv_red_eye(uint8_t *rgba, int32_t width, int32_t height, int32_t bytes_per_row, const int32_t *faces, int32_t face_count,
                   const char *eye_cascade_path, char *message);

#ifdef __cplusplus
}
#endif

#endif
