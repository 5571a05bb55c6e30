// CVideo exists because FFmpeg's libraries are C with a large, version-dependent API: this file gives Swift a
// few fixed-arity calls instead (open, read one frame scaled and turned upright, close). Each returns a status
// and, on failure, a message in the caller's buffer. One VideoHandle is used by one thread at a time.
#ifndef CVIDEO_H
#define CVIDEO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct VideoHandle VideoHandle;

/// Status codes. VIDEO_END: no further frame (not an error).
enum {
    VIDEO_OK = 0,
    VIDEO_END = 1,
    VIDEO_NOT_A_VIDEO = -2,      // no demuxer recognises the file, or it cannot be opened as one
    VIDEO_NO_VIDEO_STREAM = -3,  // a container without a video stream (e.g. audio only)
    VIDEO_UNSUPPORTED_CODEC = -4,
    VIDEO_TRUNCATED = -5,        // samples the container lists lie past the end of the file
    VIDEO_DAMAGED = -6,          // the decoder refused the data
    VIDEO_NO_FRAMES = -7,        // a video stream without a single sample
    VIDEO_NO_INDEX = -8,         // an MP4/QuickTime file without its index (moov): cut off before its end
    VIDEO_TOO_LARGE = -9,        // frames of more than max_pixels (their size is in info->coded_width/height)
    VIDEO_FAILED = -1,           // anything else (out of memory, ...)
};

typedef struct {
    int width, height;              // display size: after the rotation below
    int coded_width, coded_height;  // size of the stored frames
    int rotation;                   // clockwise quarter turn applied for display: 0, 90, 180 or 270
    double duration;                // seconds; 0 when unknown
    double fps;                     // average frame rate; 0 when unknown
    long frame_count;               // from the container's index (exact for MP4/QuickTime); 0 when unknown
    char codec[32];                 // decoder name, e.g. "h264", "hevc"
} VideoStreamInfo;

/// Opens a video file and its first video stream. threads: decoder threads (0: one per core).
/// Checks that the samples the container lists lie inside the file (a cut-off download is VIDEO_TRUNCATED) and
/// that frames have at most max_pixels pixels (before decoding any), then decodes the first frame.
int video_open(const char *path, int threads, int64_t max_pixels, VideoHandle **out, VideoStreamInfo *info, char *error,
            size_t error_size);
/// Closes the video and hands the heap memory freed back to the system (malloc_trim).
void video_close(VideoHandle *video);

/// From now on decode, of the frames no other frame refers to (non-reference frames: most B-frames), only those
/// within half a frame of one of `times` (seconds); count 0: every frame again. Frames that are skipped are never
/// returned. VIDEO_OK, or VIDEO_FAILED when memory runs out.
int video_decode_only(VideoHandle *video, const double *times, int count);

/// Decodes the frame nearest `at` seconds: the first that starts at most half a frame before it (a tie goes
/// to the earlier frame; at < 0: the next frame), seeking
/// when that is cheaper than decoding forward. Writes it, in display orientation, as packed 8-bit RGB of
/// rgb_width x rgb_height into `rgb` when `rgb` is not NULL and the frame's time is at or after `rgb_from`
/// (within half a frame; *converted then 1), and as 8-bit greyscale of grey_width x grey_height into `grey`
/// when that is not NULL. Each is one swscale pass (scale and convert; area averaging when shrinking).
/// *time receives the frame's time in seconds. Returns VIDEO_OK, VIDEO_END, or an error status.
int video_read(VideoHandle *video, double at, double rgb_from, int rgb_width, int rgb_height, uint8_t *rgb, int *converted,
            int grey_width, int grey_height, uint8_t *grey, double *time, char *error, size_t error_size);

/// A decoded frame kept for later: a new reference to the frame video_read last returned (FFmpeg's buffers are
/// reference-counted: no pixels are copied), so that a chosen frame is converted at full resolution without
/// decoding it again. Independent of its VideoHandle once made (it may outlive it, and be converted on another
/// thread). NULL when out of memory or before any frame was read.
typedef struct VideoKeptFrame VideoKeptFrame;
VideoKeptFrame *video_keep(VideoHandle *video);
/// Converts a kept frame to packed 8-bit RGB of width x height, in display orientation. VIDEO_OK or an error.
int video_kept_convert(const VideoKeptFrame *kept, int width, int height, uint8_t *rgb, char *error, size_t error_size);
void video_kept_free(VideoKeptFrame *kept);

#ifdef __cplusplus
}
#endif
#endif
