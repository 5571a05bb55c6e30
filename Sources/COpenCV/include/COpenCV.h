// COpenCV exists because OpenCV is C++ and reports bad input by throwing: a C++ exception crossing into
// Swift aborts the process. Every entry point here catches everything and returns a status plus a message
// copied into the caller's buffer. Detectors are not thread-safe: one caller at a time per detector.
#ifndef CFACEDETECT_H
#define CFACEDETECT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One face in pixels of the analysed image, origin top-left. Landmarks (when has_landmarks != 0) are
/// x,y pairs in this order, whichever detector found them: eye on the image's left, eye on the image's right, nose tip,
/// mouth corner on the image's left, mouth corner on the image's right.
typedef struct {
    float x, y, width, height;
    float score;
    float landmarks[10];
    int has_landmarks;
} OCVFace;

typedef struct OCVDetector OCVDetector;

/// CenterFace (WIDER FACE, anchor-free) through cv::dnn. model_path NULL or "" uses the copy built into the library,
/// whose net is read on the first detection when read_on_first_use is non-zero (a model file is always read now,
/// to check it, and refused past max_bytes).
OCVDetector *ocv_centerface_create(const char *model_path, int read_on_first_use, size_t max_bytes, char *error, size_t error_size);
/// YuNet 2023mar through cv::dnn. model_path NULL or "" uses the copy built into the library.
OCVDetector *ocv_yunet_create(const char *model_path, char *error, size_t error_size);
/// OpenCV Haar cascade (e.g. Debian opencv-data's haarcascade_frontalface_default.xml).
OCVDetector *ocv_haar_create(const char *cascade_path, char *error, size_t error_size);
void ocv_free(OCVDetector *detector);
/// Lets go of the memory a detector's runs allocated: CenterFace's net and its intermediate buffers (the net is
/// read again from the model's bytes before the next detection); nothing for the other detectors.
void ocv_release_working_memory(OCVDetector *detector);
/// keep != 0: CenterFace also keeps the net of the input size before the current one (see OCVDetector).
void ocv_keep_spare_net(OCVDetector *detector, int keep);

/// Detects faces in packed 8-bit RGB, on a copy scaled down to `max_side` (long side) when it is longer (0: as
/// given); boxes and points are in the given image's pixels. Writes at most `capacity` faces (best first) and
/// the number found into *count. Returns 0, or -1 with a message in `error`.
int ocv_detect(OCVDetector *detector, const uint8_t *rgb, int width, int height, int max_side, float score_threshold,
               OCVFace *faces, int capacity, int *count, char *error, size_t error_size);

/// Measurements of one face for capture quality, on an upright RGB crop around it (square, face centred).
typedef struct {
    float noise;         // Immerkaer noise estimate, in grey levels (0...255)
    float mean;          // mean luminance, 0...1
    float contrast;      // luminance standard deviation, 0...1
    float clipped;       // share of the face (smoothed, soft threshold 1-5 % / 95-99 %) clipped dark or bright
    float imbalance;     // |mean of left half - mean of right half|, 0...1
    float expression[7]; // angry, disgust, fear, happy, sad, surprise, neutral (all -1 without a model)
} OCVFaceMetrics;

typedef struct OCVExpression OCVExpression;
/// The FER2013 mini-XCEPTION expression model; model_path NULL or "" uses the built-in copy.
OCVExpression *ocv_expression_create(const char *model_path, char *error, size_t error_size);
void ocv_expression_free(OCVExpression *model);

/// Measures a face crop (packed 8-bit RGB). expression may be NULL. Not thread-safe per model.
int ocv_face_metrics(const uint8_t *rgb, int width, int height, OCVExpression *expression, OCVFaceMetrics *out,
                     char *error, size_t error_size);

/// Crete-Roffet re-blur metric (~0.2 sharp ... 1 flat) on the edges of the central part of a face crop (packed
/// 8-bit RGB, square, face centred, as for ocv_face_metrics). Returns 0 or -1.
int ocv_blur(const uint8_t *rgb, int width, int height, float *blur, char *error, size_t error_size);

/// Screening measures of one face of a whole frame (packed RGB): the cut at x, y (w x h pixels, inside the
/// frame) scaled by area to sharp_width x sharp_height for sharpness (as ocv_blur), and from there to
/// measure_width x measure_height for the rest (as ocv_face_metrics, without expression). Returns 0 or -1.
int ocv_face_screen(const uint8_t *rgb, int width, int height, int x, int y, int w, int h, int sharp_width,
                    int sharp_height, int measure_width, int measure_height, OCVFaceMetrics *out, float *blur,
                    char *error, size_t error_size);

/// JPEG blocking on packed 8-bit RGB whose (0, 0) sits on the JPEG 8x8 grid: the mean luminance step across
/// block boundaries over the mean step inside blocks (about 1 without blocking). Returns 0 or -1.
int ocv_blockiness(const uint8_t *rgb, int width, int height, float *ratio, char *error, size_t error_size);

/// Translation between two 8-bit greyscale frames of the same size, by phase correlation (cv::phaseCorrelate)
/// with a Hann window: *dx, *dy is how far the content moved from `previous` to `current`
/// (positive: right, down), in pixels; *response is the height of the correlation peak (0...1, low when the
/// frames have little in common). Returns 0, or -1 with a message in `error`.
int ocv_phase_correlate(const uint8_t *previous, const uint8_t *current, int width, int height, double *dx, double *dy,
                        double *response, char *error, size_t error_size);
/// Drawing in place on packed 8-bit RGB, origin top-left, antialiased; colours as {R, G, B}. Return 0 or -1.
/// A polyline of one point is drawn as a dot.
int ocv_draw_polyline(uint8_t *rgb, int width, int height, const float *xy, int count, int closed,
                      const uint8_t colour_rgb[3], int thickness);
int ocv_fill_rect(uint8_t *rgb, int width, int height, int x, int y, int w, int h, const uint8_t colour_rgb[3]);
/// Text in OpenCV's Hershey simplex font (ASCII only), its top-left corner at (x, y).
int ocv_draw_text(uint8_t *rgb, int width, int height, const char *text, int x, int y, double scale, int thickness,
                  const uint8_t colour_rgb[3]);
/// The size that text takes: width, height above the baseline, and the depth below it.
void ocv_text_size(const char *text, double scale, int thickness, int *width, int *height, int *baseline);
/// Packed 8-bit RGB shrunk by area into `out` (out_width x out_height, no larger than the input). Returns 0 or -1.
int ocv_shrink_rgb(const uint8_t *rgb, int width, int height, uint8_t *out, int out_width, int out_height);

#ifdef __cplusplus
}
#endif
#endif
