// Video decoding with FFmpeg's libraries (libavformat, libavcodec, libswscale), behind include/CVideo.h.
// Frames are scaled and converted to RGB in one swscale pass, then turned upright per the display matrix.
//
// The libraries are opened on first use (dlopen), not linked: linked, they and the ~55 codec libraries they
// load (x264, x265, aom, dav1d, vpx, ...) were mapped, and searched on every lazily bound call, by every
// facecrop process, a crop of a JPEG included: about 60 ms of start-up for nothing. Their major versions come
// from the headers, so the libraries opened are those the shim was compiled against.
#include "CVideo.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>

#include <dlfcn.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

// The FFmpeg functions the shim calls, as pointers into the libraries opened by ff_load.
#define FF_FUNCTIONS(X) \
    X(av_dict_free) \
    X(av_dict_set) \
    X(av_display_rotation_get) \
    X(av_find_best_stream) \
    X(av_frame_clone) \
    X(av_frame_alloc) \
    X(av_frame_free) \
    X(av_log_set_level) \
    X(av_packet_alloc) \
    X(av_packet_free) \
    X(av_packet_unref) \
    X(av_read_frame) \
    X(av_seek_frame) \
    X(av_stream_get_side_data) \
    X(av_strerror) \
    X(avcodec_alloc_context3) \
    X(avcodec_flush_buffers) \
    X(avcodec_free_context) \
    X(avcodec_get_name) \
    X(avcodec_open2) \
    X(avcodec_parameters_to_context) \
    X(avcodec_receive_frame) \
    X(avcodec_send_packet) \
    X(avformat_close_input) \
    X(avformat_find_stream_info) \
    X(avformat_index_get_entries_count) \
    X(avformat_index_get_entry) \
    X(avformat_index_get_entry_from_timestamp) \
    X(avformat_open_input) \
    X(avio_size) \
    X(sws_freeContext) \
    X(sws_getCachedContext) \
    X(sws_scale)

#define FF_POINTER(name) __typeof__(name) *name;
static struct {
    FF_FUNCTIONS(FF_POINTER)
} ff;

#define FF_LIBRARY(name, major) "lib" name ".so." AV_STRINGIFY(major)
static const char *const ff_libraries[] = {
    FF_LIBRARY("avutil", LIBAVUTIL_VERSION_MAJOR), FF_LIBRARY("avcodec", LIBAVCODEC_VERSION_MAJOR),
    FF_LIBRARY("avformat", LIBAVFORMAT_VERSION_MAJOR), FF_LIBRARY("swscale", LIBSWSCALE_VERSION_MAJOR),
};
static char ff_error[512];
static pthread_once_t ff_once = PTHREAD_ONCE_INIT;

static void ff_load_once(void) {
    void *handles[sizeof ff_libraries / sizeof *ff_libraries];
    for (size_t i = 0; i < sizeof ff_libraries / sizeof *ff_libraries; i++) {
        handles[i] = dlopen(ff_libraries[i], RTLD_NOW | RTLD_LOCAL);
        if (!handles[i]) {
            snprintf(ff_error, sizeof ff_error, "FFmpeg's %s could not be loaded (%s)", ff_libraries[i], dlerror());
            return;
        }
    }
#define FF_RESOLVE(name)                                                                  \
    for (size_t i = 0; !ff.name && i < sizeof handles / sizeof *handles; i++)              \
        ff.name = (__typeof__(ff.name))dlsym(handles[i], #name);                           \
    if (!ff.name) {                                                                        \
        snprintf(ff_error, sizeof ff_error, "FFmpeg's libraries have no %s", #name);       \
        return;                                                                            \
    }
    FF_FUNCTIONS(FF_RESOLVE)
}

/// Opens FFmpeg's libraries once per process: 0, or -1 with the reason in `error`.
static int ff_load(char *error, size_t size) {
    pthread_once(&ff_once, ff_load_once);
    if (!ff_error[0]) return 0;
    if (error && size > 0) snprintf(error, size, "%s", ff_error);
    return -1;
}

struct VideoHandle {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVStream *stream;
    int stream_index;
    AVPacket *packet;
    AVFrame *frame;
    struct SwsContext *sws;       // to RGB
    struct SwsContext *sws_grey;  // to greyscale
    uint8_t *turned;      // scratch for rotated frames
    size_t turned_size;
    int rotation;
    double fps;
    int flushed;          // end of file reached and the decoder told so
    int decoded_any;
    int pending;          // v->frame holds a frame not yet returned
    long received;        // frames the decoder has returned since the file was opened
    int width, height;    // the first frame's picture size, which every frame must keep
    int untimed;          // a frame came without a timestamp (a raw stream): times are counted, never sought
    double last_time;     // time of the frame in v->frame
    double *needed;       // with video_decode_only: times of the frames to decode, sorted (others only if referenced)
    int needed_count;
};

static void set_error(char *error, size_t size, const char *what, int code) {
    if (!error || size == 0) return;
    if (code) {
        char text[AV_ERROR_MAX_STRING_SIZE] = {0};
        ff.av_strerror(code, text, sizeof text);
        snprintf(error, size, "%s: %s", what, text);
    } else {
        snprintf(error, size, "%s", what);
    }
}

void video_close(VideoHandle *v) {
    if (!v) return;
    ff.sws_freeContext(v->sws);
    ff.sws_freeContext(v->sws_grey);
    ff.av_frame_free(&v->frame);
    ff.av_packet_free(&v->packet);
    ff.avcodec_free_context(&v->codec);
    ff.avformat_close_input(&v->format);
    free(v->turned);
    free(v->needed);
    free(v);
    // The decoder's frame pools (tens of MB at 1080p) go back to the system rather than staying in the heap:
    // best-frame scores its finalists after closing the decoder, and would otherwise hold both at its peak.
    malloc_trim(0);
}

/// The frame's time from its timestamp; in a stream without them (raw H.264 or HEVC), from its place in
/// decoding order at the stream's frame rate (25 when it gives none), which is right while nothing is sought.
static double frame_time(VideoHandle *v, const AVFrame *f) {
    int64_t ts = f->best_effort_timestamp;
    if (ts == AV_NOPTS_VALUE) ts = f->pts;
    if (ts == AV_NOPTS_VALUE) {
        v->untimed = 1;
        return (double)(v->received - 1) / (v->fps > 0 ? v->fps : 25);
    }
    int64_t start = v->stream->start_time == AV_NOPTS_VALUE ? 0 : v->stream->start_time;
    return (double)(ts - start) * av_q2d(v->stream->time_base);
}

/// Whether the packet's frame is among v->needed (within half a frame); one without a time is.
static int packet_needed(const VideoHandle *v, const AVPacket *p) {
    if (p->pts == AV_NOPTS_VALUE) return 1;
    int64_t start = v->stream->start_time == AV_NOPTS_VALUE ? 0 : v->stream->start_time;
    double t = (double)(p->pts - start) * av_q2d(v->stream->time_base);
    double tolerance = v->fps > 0 ? 0.5 / v->fps : 0.001;
    int lo = 0, hi = v->needed_count;  // first needed time >= t - tolerance
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (v->needed[mid] < t - tolerance) lo = mid + 1; else hi = mid;
    }
    return lo < v->needed_count && v->needed[lo] < t + tolerance;
}

static int compare_times(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int video_decode_only(VideoHandle *v, const double *times, int count) {
    if (!v || count < 0 || (count > 0 && !times)) return VIDEO_FAILED;
    double *copy = count > 0 ? malloc(sizeof(double) * (size_t)count) : NULL;
    if (count > 0 && !copy) return VIDEO_FAILED;
    if (count > 0) {
        memcpy(copy, times, sizeof(double) * (size_t)count);
        qsort(copy, (size_t)count, sizeof(double), compare_times);
    }
    free(v->needed);
    v->needed = copy;
    v->needed_count = count;
    if (count == 0) v->codec->skip_frame = AVDISCARD_DEFAULT;
    return VIDEO_OK;
}

/// Decodes the next frame into v->frame: VIDEO_OK, VIDEO_END or VIDEO_DAMAGED.
static int next_frame(VideoHandle *v, char *error, size_t error_size) {
    for (;;) {
        int rc = ff.avcodec_receive_frame(v->codec, v->frame);
        if (rc == 0) {
            v->decoded_any = 1;
            v->received++;
            v->last_time = frame_time(v, v->frame);
            // Frames are converted to the first one's size: a stream that changes size (streams joined end to end)
            // would come out squashed.
            if (v->width == 0) {
                v->width = v->frame->width;
                v->height = v->frame->height;
            } else if (v->frame->width != v->width || v->frame->height != v->height) {
                if (error && error_size > 0)
                    snprintf(error, error_size, "its picture size changes from %dx%d to %dx%d at %.3f s, and facecrop reads videos of one size",
                             v->width, v->height, v->frame->width, v->frame->height, v->last_time);
                return VIDEO_DAMAGED;
            }
            return VIDEO_OK;
        }
        if (rc == AVERROR_EOF) return VIDEO_END;
        if (rc != AVERROR(EAGAIN)) {
            set_error(error, error_size, "the decoder failed", rc);
            return VIDEO_DAMAGED;
        }
        if (v->flushed) return VIDEO_END;
        rc = ff.av_read_frame(v->format, v->packet);
        if (rc == AVERROR_EOF) {
            ff.avcodec_send_packet(v->codec, NULL);
            v->flushed = 1;
            continue;
        }
        if (rc < 0) {
            set_error(error, error_size, "reading the file failed", rc);
            return VIDEO_DAMAGED;
        }
        if (v->packet->stream_index != v->stream_index) {
            ff.av_packet_unref(v->packet);
            continue;
        }
        if (v->needed_count > 0) v->codec->skip_frame = packet_needed(v, v->packet) ? AVDISCARD_DEFAULT : AVDISCARD_NONREF;
        rc = ff.avcodec_send_packet(v->codec, v->packet);
        ff.av_packet_unref(v->packet);
        if (rc < 0) {
            set_error(error, error_size, "the decoder refused the data", rc);
            return VIDEO_DAMAGED;
        }
    }
}

/// Clockwise rotation for display, as FFmpeg's own tools compute it from the display matrix.
static int display_rotation(AVStream *st) {
    size_t size = 0;
    const uint8_t *matrix = ff.av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (!matrix || size < 9 * sizeof(int32_t)) return 0;
    double theta = -round(ff.av_display_rotation_get((const int32_t *)matrix));
    if (isnan(theta)) return 0;
    theta -= 360 * floor(theta / 360 + 0.9 / 360);
    int quarter = (int)lround(theta / 90) % 4;
    return quarter * 90;
}

/// Whether the container's index lists samples past the end of the file (a cut-off copy).
static int samples_past_end(AVFormatContext *format, AVStream *st) {
    int64_t file_size = format->pb ? ff.avio_size(format->pb) : -1;
    if (file_size <= 0) return 0;
    int n = ff.avformat_index_get_entries_count(st);
    for (int i = n - 1; i >= 0 && i >= n - 64; i--) {
        const AVIndexEntry *e = ff.avformat_index_get_entry(st, i);
        if (e && e->pos + e->size > file_size) return 1;
    }
    return 0;
}

/// Whether the file starts like an MP4/QuickTime file (an 'ftyp' box).
static int is_isobmff(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    unsigned char head[8] = {0};
    const size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return n == sizeof head && memcmp(head + 4, "ftyp", 4) == 0;
}

// Opens `path` with the demuxers of the containers facecrop reads, from local files only: FFmpeg would otherwise
// take a playlist or a concat list named .mp4 (HLS, ffconcat) and open whatever files or URLs it names, a FIFO
// among them, without facecrop's checks.
static int open_input(AVFormatContext **format, const char *path) {
    AVDictionary *options = NULL;
    ff.av_dict_set(&options, "format_whitelist", "mov,matroska,avi,mpegts,h264,hevc,ivf", 0);
    ff.av_dict_set(&options, "protocol_whitelist", "file", 0);
    int rc = ff.avformat_open_input(format, path, NULL, &options);
    ff.av_dict_free(&options);
    return rc;
}

// A container that does not say how long its video lasts (a raw H.264 stream named .mp4) would slip past
// --max-duration: its video packets (one per frame) are counted instead, on a second opening of the file,
// without decoding. At most `limit` are counted (a 512 MiB file holds far fewer).
static long count_video_frames(const char *path, int stream_index, long limit) {
    AVFormatContext *format = NULL;
    if (open_input(&format, path) < 0) return -1;
    long n = -1;
    AVPacket *packet = ff.av_packet_alloc();
    if (packet && ff.avformat_find_stream_info(format, NULL) >= 0) {
        n = 0;
        while (n < limit && ff.av_read_frame(format, packet) >= 0) {
            if (packet->stream_index == stream_index) n++;
            ff.av_packet_unref(packet);
        }
    }
    ff.av_packet_free(&packet);
    ff.avformat_close_input(&format);
    return n;
}

int video_open(const char *path, int threads, int64_t max_pixels, VideoHandle **out, VideoStreamInfo *info, char *error,
            size_t error_size) {
    *out = NULL;
    memset(info, 0, sizeof *info);
    if (ff_load(error, error_size) != 0) return VIDEO_FAILED;
    ff.av_log_set_level(AV_LOG_QUIET);
    VideoHandle *v = calloc(1, sizeof *v);
    if (!v) {
        set_error(error, error_size, "out of memory", 0);
        return VIDEO_FAILED;
    }
    int rc = open_input(&v->format, path);
    if (rc == AVERROR(EINVAL)) {
        // The demuxer FFmpeg found is not on open_input's list (a playlist, a concat list, an image sequence...).
        set_error(error, error_size, "its format is not one facecrop reads: MP4/QuickTime, Matroska/WebM, AVI, MPEG-TS, raw H.264, HEVC or IVF", 0);
        video_close(v);
        return VIDEO_NOT_A_VIDEO;
    }
    if (rc < 0) {
        set_error(error, error_size, "no demuxer could read it", rc);
        video_close(v);
        // A cut-off MP4/QuickTime file whose index (moov) was to come at the end fails here: say so.
        return rc == AVERROR(ENOMEM) ? VIDEO_FAILED : is_isobmff(path) ? VIDEO_NO_INDEX : VIDEO_NOT_A_VIDEO;
    }
    rc = ff.avformat_find_stream_info(v->format, NULL);
    if (rc < 0) {
        set_error(error, error_size, "its streams could not be read", rc);
        video_close(v);
        return VIDEO_DAMAGED;
    }
    const AVCodec *decoder = NULL;
    rc = ff.av_find_best_stream(v->format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (rc == AVERROR_STREAM_NOT_FOUND || (rc >= 0 && (v->format->streams[rc]->disposition & AV_DISPOSITION_ATTACHED_PIC))) {
        set_error(error, error_size, "it has no video stream", 0);
        video_close(v);
        return VIDEO_NO_VIDEO_STREAM;
    }
    if (rc < 0 || !decoder) {
        AVStream *any = NULL;
        for (unsigned i = 0; i < v->format->nb_streams; i++)
            if (v->format->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) any = v->format->streams[i];
        snprintf(error, error_size, "no decoder for its video codec '%s'",
                 any ? ff.avcodec_get_name(any->codecpar->codec_id) : "unknown");
        video_close(v);
        return VIDEO_UNSUPPORTED_CODEC;
    }
    v->stream_index = rc;
    v->stream = v->format->streams[rc];
    AVStream *st = v->stream;
    snprintf(info->codec, sizeof info->codec, "%s", ff.avcodec_get_name(st->codecpar->codec_id));
    if (samples_past_end(v->format, st)) {
        set_error(error, error_size, "the file ends before the video data it lists", 0);
        video_close(v);
        return VIDEO_TRUNCATED;
    }

    info->coded_width = st->codecpar->width;
    info->coded_height = st->codecpar->height;
    if ((int64_t)st->codecpar->width * st->codecpar->height > max_pixels) {
        set_error(error, error_size, "its frames have too many pixels", 0);
        video_close(v);
        return VIDEO_TOO_LARGE;
    }

    v->codec = ff.avcodec_alloc_context3(decoder);
    v->packet = ff.av_packet_alloc();
    v->frame = ff.av_frame_alloc();
    if (!v->codec || !v->packet || !v->frame) {
        set_error(error, error_size, "out of memory", 0);
        video_close(v);
        return VIDEO_FAILED;
    }
    ff.avcodec_parameters_to_context(v->codec, st->codecpar);
    // One thread per core, not FFmpeg's automatic one more: each frame thread holds frames of its own (about
    // 7 MB at 1080p), and with the analysis sharing the cores the extra one saved best-frame 3 % at most.
    if (threads <= 0) {
        const long cores = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cores < 1 ? 1 : cores > 16 ? 16 : (int)cores;
    }
    v->codec->thread_count = threads;
    v->codec->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
    rc = ff.avcodec_open2(v->codec, decoder, NULL);
    if (rc < 0) {
        snprintf(error, error_size, "the '%s' decoder could not start", decoder->name);
        video_close(v);
        return VIDEO_UNSUPPORTED_CODEC;
    }

    v->rotation = display_rotation(st);
    AVRational rate = st->avg_frame_rate.num > 0 ? st->avg_frame_rate : st->r_frame_rate;
    v->fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
    v->last_time = -1;

    // Decode the first frame now: a stream without frames or with undecodable data fails here, clearly.
    rc = next_frame(v, error, error_size);
    if (rc == VIDEO_END) {
        set_error(error, error_size, "it contains no video frames", 0);
        video_close(v);
        return VIDEO_NO_FRAMES;
    }
    if (rc != VIDEO_OK) {
        video_close(v);
        return rc;
    }
    v->pending = 1;

    int cw = v->frame->width, ch = v->frame->height;
    info->coded_width = cw;
    info->coded_height = ch;
    info->rotation = v->rotation;
    info->width = v->rotation % 180 ? ch : cw;
    info->height = v->rotation % 180 ? cw : ch;
    info->fps = v->fps;
    if (st->duration != AV_NOPTS_VALUE && st->duration > 0)
        info->duration = (double)st->duration * av_q2d(st->time_base);
    else if (v->format->duration > 0)
        info->duration = (double)v->format->duration / AV_TIME_BASE;
    info->frame_count = st->nb_frames > 0 ? (long)st->nb_frames : ff.avformat_index_get_entries_count(st);
    if (info->frame_count <= 0 && info->duration > 0 && v->fps > 0) info->frame_count = lround(info->duration * v->fps);
    if (!(info->duration > 0)) {
        long frames = count_video_frames(path, v->stream_index, 100000000L);
        if (frames > 0) {
            info->frame_count = frames;
            info->duration = (double)frames / (v->fps > 0 ? v->fps : 25);
        }
    }
    *out = v;
    return VIDEO_OK;
}

/// Whether decoding forward from the current position reaches `at` later than a seek would.
static int seek_is_cheaper(VideoHandle *v, double at, double tolerance) {
    if (!v->decoded_any) return 0;
    double have = v->pending ? v->last_time - tolerance : v->last_time + tolerance;
    if (at < have) return 1;  // the frame wanted was passed
    if (v->untimed) return 0;  // no timestamps to seek by: decoding on is the way forward
    int64_t start = v->stream->start_time == AV_NOPTS_VALUE ? 0 : v->stream->start_time;
    int64_t ts = start + (int64_t)(at / av_q2d(v->stream->time_base));
    const AVIndexEntry *key = ff.avformat_index_get_entry_from_timestamp(v->stream, ts, AVSEEK_FLAG_BACKWARD);
    if (!key || key->timestamp == AV_NOPTS_VALUE) return 0;
    double key_time = (double)(key->timestamp - start) * av_q2d(v->stream->time_base);
    return key_time > v->last_time + tolerance;
}

/// Turns packed pixels of `bpp` bytes (sw x sh, stored orientation) clockwise by `rotation` into width x height.
static void turn(const uint8_t *src, int sw, int sh, int bpp, int rotation, uint8_t *dst, int width, int height) {
    for (int dy = 0; dy < height; dy++) {
        uint8_t *row = dst + (size_t)dy * width * bpp;
        for (int dx = 0; dx < width; dx++) {
            int sx, sy;
            if (rotation == 90) { sx = dy; sy = sh - 1 - dx; }
            else if (rotation == 270) { sx = sw - 1 - dy; sy = dx; }
            else { sx = sw - 1 - dx; sy = sh - 1 - dy; }
            memcpy(row + dx * bpp, src + ((size_t)sy * sw + sx) * bpp, bpp);
        }
    }
}

/// Scales and converts `f` into `out` (width x height in display orientation, `format` RGB24 or GRAY8), turned
/// clockwise by `rotation` through the scratch buffer `*turned` (grown as needed).
static int convert_frame(const AVFrame *f, int rotation, struct SwsContext **context, uint8_t **turned, size_t *turned_size,
                         enum AVPixelFormat format, int width, int height, uint8_t *out, char *error, size_t error_size) {
    const int bpp = format == AV_PIX_FMT_RGB24 ? 3 : 1;
    const int quarter = rotation % 180 != 0;
    const int sw = quarter ? height : width, sh = quarter ? width : height;  // scaled size, stored orientation
    const int shrinking = sw < f->width || sh < f->height;
    *context = ff.sws_getCachedContext(*context, f->width, f->height, f->format, sw, sh, format,
                                    shrinking ? SWS_AREA : SWS_BICUBIC, NULL, NULL, NULL);
    if (!*context) {
        set_error(error, error_size, "cannot convert its pixel format", 0);
        return VIDEO_FAILED;
    }
    uint8_t *target = out;
    if (rotation) {
        size_t need = (size_t)sw * sh * bpp;
        if (*turned_size < need) {
            uint8_t *p = realloc(*turned, need);
            if (!p) {
                set_error(error, error_size, "out of memory", 0);
                return VIDEO_FAILED;
            }
            *turned = p;
            *turned_size = need;
        }
        target = *turned;
    }
    uint8_t *planes[4] = {target, NULL, NULL, NULL};
    int strides[4] = {sw * bpp, 0, 0, 0};
    ff.sws_scale(*context, (const uint8_t *const *)f->data, f->linesize, 0, f->height, planes, strides);
    if (rotation) turn(target, sw, sh, bpp, rotation, out, width, height);
    return VIDEO_OK;
}

static int convert(VideoHandle *v, struct SwsContext **context, enum AVPixelFormat format, int width, int height, uint8_t *out,
                   char *error, size_t error_size) {
    return convert_frame(v->frame, v->rotation, context, &v->turned, &v->turned_size, format, width, height, out, error,
                         error_size);
}

struct VideoKeptFrame {
    AVFrame *frame;
    int rotation;
};

VideoKeptFrame *video_keep(VideoHandle *v) {
    if (!v || !v->decoded_any) return NULL;
    VideoKeptFrame *k = calloc(1, sizeof *k);
    if (!k) return NULL;
    k->frame = ff.av_frame_clone(v->frame);
    if (!k->frame) {
        free(k);
        return NULL;
    }
    k->rotation = v->rotation;
    return k;
}

int video_kept_convert(const VideoKeptFrame *k, int width, int height, uint8_t *rgb, char *error, size_t error_size) {
    if (!k || !rgb || width <= 0 || height <= 0) {
        set_error(error, error_size, "invalid arguments", 0);
        return VIDEO_FAILED;
    }
    struct SwsContext *context = NULL;
    uint8_t *turned = NULL;
    size_t turned_size = 0;
    int rc = convert_frame(k->frame, k->rotation, &context, &turned, &turned_size, AV_PIX_FMT_RGB24, width, height, rgb, error,
                           error_size);
    ff.sws_freeContext(context);
    free(turned);
    return rc;
}

void video_kept_free(VideoKeptFrame *k) {
    if (!k) return;
    ff.av_frame_free(&k->frame);
    free(k);
}

int video_read(VideoHandle *v, double at, double rgb_from, int rgb_width, int rgb_height, uint8_t *rgb, int *converted,
            int grey_width, int grey_height, uint8_t *grey, double *time, char *error, size_t error_size) {
    if (converted) *converted = 0;
    if (!v || (rgb && (rgb_width <= 0 || rgb_height <= 0)) || (grey && (grey_width <= 0 || grey_height <= 0))) {
        set_error(error, error_size, "invalid arguments", 0);
        return VIDEO_FAILED;
    }
    const double tolerance = v->fps > 0 ? 0.5 / v->fps : 0.001;
    if (at >= 0 && seek_is_cheaper(v, at, tolerance)) {
        int64_t start = v->stream->start_time == AV_NOPTS_VALUE ? 0 : v->stream->start_time;
        int64_t ts = start + (int64_t)(at / av_q2d(v->stream->time_base));
        // Without timestamps, back to the first byte, where the count of frames starts again.
        int rc = v->untimed ? ff.av_seek_frame(v->format, v->stream_index, 0, AVSEEK_FLAG_BYTE)
                            : ff.av_seek_frame(v->format, v->stream_index, ts, AVSEEK_FLAG_BACKWARD);
        if (v->untimed) v->received = 0;
        if (rc < 0) {
            set_error(error, error_size, "seeking failed", rc);
            return VIDEO_DAMAGED;
        }
        ff.avcodec_flush_buffers(v->codec);
        v->flushed = 0;
        v->pending = 0;
        v->decoded_any = 0;
    }
    for (;;) {
        if (!v->pending) {
            int rc = next_frame(v, error, error_size);
            if (rc != VIDEO_OK) return rc;
        }
        v->pending = 0;
        if (at < 0 || v->last_time >= at - tolerance) break;
    }
    *time = v->last_time;
    if (grey) {
        int rc = convert(v, &v->sws_grey, AV_PIX_FMT_GRAY8, grey_width, grey_height, grey, error, error_size);
        if (rc != VIDEO_OK) return rc;
    }
    if (rgb && v->last_time >= rgb_from - tolerance) {
        int rc = convert(v, &v->sws, AV_PIX_FMT_RGB24, rgb_width, rgb_height, rgb, error, error_size);
        if (rc != VIDEO_OK) return rc;
        if (converted) *converted = 1;
    }
    return VIDEO_OK;
}
