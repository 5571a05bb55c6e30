// CVipsShim exists because libvips' public calls are NULL-terminated variadics, which Swift cannot call.
// Each wrapper has a fixed arity, returns 0 on success and -1 on failure (the message is then in
// fc_error_copy()), hands back a NEW reference in *out, and only borrows its inputs.
// The image type is opaque here so Swift never parses glib's headers.
#ifndef CVIPSSHIM_H
#define CVIPSSHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct _VipsImage FCImage;

enum { FC_NOT_AN_IMAGE = -2, FC_BLOCKED = -3 };

/// Makes libvips open its modules (loaders in separate libraries) when needed rather than all at start. Call
/// before fc_init, while the process has one thread (it sets VIPSHOME).
void fc_load_modules_on_demand(void);
/// Makes glibc map every block of 64 KiB or more (given back when freed) rather than keep such blocks in its heap.
void fc_map_large_blocks(void);
/// Standard output flushed: 0, the errno of the failure, or -1 when an earlier buffered write failed (its errno gone).
int fc_flush_stdout(void);
/// Standard output written a line at a time, in a pipe too.
void fc_line_buffer_stdout(void);
/// Opens libvips' modules not opened yet (after fc_load_modules_on_demand), holding the exclusive lock unless
/// the caller does (a caller holding the shared lock lets go of it first): 1 when it opened them, so a source
/// no loader knew may be tried again; 0 when there was nothing to open.
int fc_load_all_modules(void);
/// Starts libvips once (safe to call repeatedly). Returns 0 on success.
int fc_init(const char *argv0);
/// Blocks (or allows) the loaders libvips marks untrusted, e.g. ImageMagick. Allowing them opens every module.
void fc_block_untrusted(int block);
/// Copies and clears libvips' error buffer. Free the result with fc_free.
char *fc_error_copy(void);
// A process-wide read-write lock around libvips calls: shared for ordinary calls, exclusive to read an input
// again alone when its error message may have been mixed with another thread's.
void fc_lock_shared(void);
void fc_unlock_shared(void);
void fc_lock_exclusive(void);
void fc_unlock_exclusive(void);
void fc_free(void *p);
void fc_unref(FCImage *image);

/// Opens a file through a VipsSource, so a name ending in "[...]" is a name, never load options.
/// shrink > 1 asks the JPEG loader for shrink-on-load (ignored by other formats). The header is read now,
/// pixels when needed. sequential != 0 asks for sequential access.
/// Returns 0, FC_NOT_AN_IMAGE when no loader knows the file, FC_BLOCKED when its loader is blocked, or -1.
/// (These two do not depend on libvips' error buffer, which is process-wide and can be cleared by another
/// thread before it is read.)
int fc_open(const char *path, int sequential, int fail_on_truncated, int shrink, FCImage **out);

/// Encoded image bytes held in memory (a libvips blob, reference-counted): images opened from it keep it alive.
typedef struct _VipsBlob FCBlob;
/// A blob holding a copy of `length` bytes at `data`; NULL on failure. Release with fc_blob_unref.
FCBlob *fc_blob_copy(const void *data, size_t length);
void fc_blob_unref(FCBlob *blob);
/// fc_open and fc_thumbnail on the bytes of a blob instead of a file.
int fc_open_blob(FCBlob *blob, int sequential, int fail_on_truncated, int shrink, FCImage **out);
int fc_thumbnail_blob(FCBlob *blob, int width, int height, int fail_on_truncated, FCImage **out);
/// vips_thumbnail into a box of width x height (enlarging smaller images), honouring EXIF orientation. Returns
/// as fc_open does.
int fc_thumbnail(const char *path, int width, int height, int fail_on_truncated, FCImage **out);

/// A resized, upright, in-memory copy of an image already decoded into memory, its long side `box`
/// (smaller images are enlarged): integer box shrink (horizontal, then vertical: 3-4x faster than vips_thumbnail_image here),
/// lanczos3 for the rest, then EXIF orientation applied.
int fc_preview(FCImage *in, int box, FCImage **out);
/// Bytes the decoded pixels take (width x height x bands x sample size).
size_t fc_decoded_bytes(const FCImage *image);
/// Decoders that hold a whole frame in memory whatever the access pattern (see fc_whole_frame_format).
enum { FC_STREAMED = 0, FC_PROGRESSIVE_JPEG = 1, FC_INTERLACED_PNG = 2, FC_GIF = 3, FC_WEBP_WHOLE = 4, FC_HEIF_WHOLE = 5 };
/// Which whole-frame decoder reads this image (FC_STREAMED for none), and the bytes per pixel it takes.
int fc_whole_frame_format(FCImage *image, int *bytes_per_pixel);

int fc_width(const FCImage *image);
int fc_height(const FCImage *image);
int fc_bands(const FCImage *image);
int fc_has_alpha(FCImage *image);
/// Whether an ICC profile is attached.
int fc_has_icc_profile(FCImage *image);
/// EXIF orientation 1...8 (1 when absent or invalid).
int fc_orientation(FCImage *image);
/// Loader nickname, e.g. "jpegload_source". Free with fc_free.
char *fc_loader(FCImage *image);
/// Interpretation nickname, e.g. "srgb", "b-w", "cmyk". Free with fc_free.
char *fc_interpretation(FCImage *image);
/// A float image tagged scRGB (linear light, 0...1, as libvips reads every float RGB TIFF) whose values reach
/// past 2: sRGB written as floats of 0...255. Reads the pixels: for images in memory.
int fc_is_srgb_as_float(FCImage *image);
/// The same pixels tagged sRGB.
int fc_tag_srgb(FCImage *in, FCImage **out);

/// Decodes to packed 8-bit RGB (alpha flattened on white). *out is g_malloc'ed: free with fc_free.
int fc_rgb8(FCImage *in, uint8_t **out, int *width, int *height);

/// An sRGB image holding a copy of packed 8-bit RGB pixels.
int fc_from_rgb8(const uint8_t *rgb, int width, int height, FCImage **out);

int fc_extract(FCImage *in, int left, int top, int width, int height, FCImage **out);
/// Resizes to exactly width x height (lanczos3), fixing libvips' rounding by a pixel if needed.
int fc_resize_to(FCImage *in, int width, int height, FCImage **out);
int fc_copy_memory(FCImage *in, FCImage **out);
/// Rotates upright per the orientation tag and removes the tag.
int fc_autorot(FCImage *in, FCImage **out);
/// Turned clockwise by `quarters` quarter turns (1, 2 or 3).
int fc_rot(FCImage *in, int quarters, FCImage **out);
/// Flattens alpha onto white; returns a new reference to the input when it has no alpha.
int fc_flatten_white(FCImage *in, FCImage **out);
/// Converts to sRGB (8 bit) unless the image is already sRGB or greyscale 8 bit; keeps alpha.
int fc_to_srgb(FCImage *in, FCImage **out);
/// Pixels described by an embedded ICC profile converted to sRGB; the image itself when it has none.
int fc_profile_to_srgb(FCImage *in, FCImage **out);
/// libvips' attention smartcrop of width x height: the centre of attention, in input coordinates.
int fc_attention_center(FCImage *in, int width, int height, int *x, int *y);

typedef enum { FC_JPEG = 0, FC_PNG = 1, FC_WEBP = 2, FC_TIFF = 3, FC_HEIF = 4, FC_AVIF = 5 } FCFormat;
/// Saves with an explicit saver (the file name's extension is not consulted). quality <= 0: default.
int fc_save(FCImage *in, const char *path, FCFormat format, int quality, int strip);
/// fc_save into memory, with the same encoder and options: *out (free with fc_free) holds *length bytes.
int fc_save_memory(FCImage *in, FCFormat format, int quality, int strip, void **out, size_t *length);
/// Whether this libvips can save the format (e.g. HEIF/AVIF need an encoder).
int fc_can_save(FCFormat format);

/// SHA-256 of a file's bytes as 64 hex digits into `hex` (65 bytes). Returns 0, or -1 with errno set.
int fc_sha256_file(const char *path, char *hex);

/// Compares two images of the same size and bands: largest channel difference, and the share of pixels
/// where some channel differs by more than threshold.
int fc_compare(FCImage *a, FCImage *b, double threshold, double *max_delta, double *mismatch_fraction);

#ifdef __cplusplus
}
#endif
#endif
