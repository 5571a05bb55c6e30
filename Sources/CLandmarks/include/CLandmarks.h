// CLandmarks exists because dlib is C++ that reports bad input by throwing: a C++ exception crossing into Swift
// aborts the process. Every entry point catches everything and returns a status plus a message copied into the
// caller's buffer. It fits dlib's 68-point shape predictor (an ensemble of regression trees, Kazemi & Sullivan
// 2014) and keeps a raw binary copy of the model in a cache folder, because dlib's own portable format takes
// about 0.7 s to parse.
#ifndef CLANDMARKS_H
#define CLANDMARKS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct CLMPredictor CLMPredictor;

/// Loads a dlib shape predictor (e.g. /usr/share/dlib/shape_predictor_68_face_landmarks.dat). With a
/// cache_dir (NULL or "" for none), reads the raw cache written there by an earlier load when it matches the
/// model's size and modification time, and otherwise parses the model and writes the cache (atomically).
/// Any cache problem falls back to parsing the model silently. Returns NULL with a message in `error`.
CLMPredictor *clm_create(const char *model_path, const char *cache_dir, char *error, size_t error_size);
void clm_free(CLMPredictor *predictor);

/// Number of points the predictor places (68 for the iBUG 300-W model).
int clm_parts(const CLMPredictor *predictor);

/// 1 when the predictor came from the raw cache, 0 when dlib parsed the model file.
int clm_loaded_from_cache(const CLMPredictor *predictor);

/// The cache file this load wrote (dlib parsed the model and its raw copy was saved), or NULL when it wrote none.
/// Owned by the predictor.
const char *clm_written_cache(const CLMPredictor *predictor);

/// Fits the shape inside a face box on packed 8-bit RGB (pixel coordinates, origin top-left). Writes
/// 2 * clm_parts() floats (x, y per point, sub-pixel, same origin) into xy_out. Safe to call from several
/// threads at once on one predictor. Returns 0, or -1 with a message in `error`.
int clm_fit(const CLMPredictor *predictor, const uint8_t *rgb, int width, int height, float box_x, float box_y,
            float box_w, float box_h, float *xy_out, char *error, size_t error_size);

/// The same fit through dlib's own shape_predictor::operator() on its float model, parsed from the model file on
/// the first call (about a second), which rounds to whole pixels: clm_fit's points rounded to the nearest integer
/// equal these, unless the compact model's 16-bit leaves flipped one of the trees' splits. For tests.
int clm_fit_reference(const CLMPredictor *predictor, const uint8_t *rgb, int width, int height, float box_x,
                      float box_y, float box_w, float box_h, float *xy_out, char *error, size_t error_size);

#ifdef __cplusplus
}
#endif
#endif
