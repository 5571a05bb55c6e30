// Fixed-arity wrappers over libvips' variadic calls (see include/CVipsShim.h for the contract).
// Multi-step wrappers keep their temporaries in vips_object_local_array, freed with the parent object.
#define _GNU_SOURCE  // pthread_rwlockattr_setkind_np
#include "CVipsShim.h"
#include "huge_pages.h"
#include <vips/vips.h>
#include <link.h>
#include <errno.h>
#include <gmodule.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// Some loaders (libvips 8.14's PNG loader among them) report why a header is bad only as a warning, and
// leave the error buffer empty. The last warning of each thread is kept as the error's detail.
static __thread char last_warning[256];

static void keep_warning(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain, (void)level, (void)data;
    g_strlcpy(last_warning, message ? message : "", sizeof last_warning);
}

// libvips opens every module of its modules folder when it starts (ImageMagick, PDF, OpenSlide, JPEG XL and
// HEIF on Debian): about 7 MB of memory and 15 ms per process, for loaders facecrop blocks by default. With
// fc_load_modules_on_demand, libvips starts with none (VIPSHOME names a folder that cannot exist) and facecrop
// opens them from the folder beside the libvips library that runs. HEIF's and OpenSlide's open at start:
// OpenSlide's loader ranks above the TIFF, JPEG and GIF loaders for the files it knows (slide scans are
// TIFFs), so opening it later would change which loader reads such a file. The others (ImageMagick, PDF, JPEG
// XL: formats no loader open at start knows) open when untrusted loaders are allowed or when no open loader
// knows a file (fc_load_all_modules), so a blocked format is still told from no image. A VIPSHOME already set
// is replaced: libvips sets it at start, so a parent process that used libvips passes its own on, and modules
// must come from the libvips that runs anyway.
static int modules_on_demand = 0;
static gint all_modules_loaded = 0;
static const char *const modules_at_start[] = {"vips-heif." G_MODULE_SUFFIX, "vips-openslide." G_MODULE_SUFFIX};

void fc_load_modules_on_demand(void) {
    g_setenv("VIPSHOME", "/dev/null", TRUE);
    modules_on_demand = 1;
}

// The folder of the libvips library this process runs with (found among the loaded objects: the address of
// one of its functions could be the executable's own stub).
static int find_libvips(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    if (!base || !g_str_has_prefix(base + 1, "libvips.so")) return 0;
    *(char **)data = g_path_get_dirname(info->dlpi_name);
    return 1;
}

// Opens the modules named in `only` (file names, `count` of them), or every module when `only` is NULL.
// GModule runs a module's initialisation (which registers its loaders and savers) once, however often it is
// opened.
static void load_modules(const char *const *only, size_t count) {
    char *libdir = NULL;
    dl_iterate_phdr(find_libvips, &libdir);
    if (!libdir) return;
    char *folder = g_strdup_printf("%s/vips-modules-%d.%d", libdir, vips_version(0), vips_version(1));
    GDir *dir = g_dir_open(folder, 0, NULL);
    const char *name;
    while (dir && (name = g_dir_read_name(dir))) {
        int wanted = only == NULL && g_str_has_suffix(name, "." G_MODULE_SUFFIX);
        for (size_t i = 0; only && i < count; i++) wanted |= strcmp(name, only[i]) == 0;
        if (!wanted) continue;
        char *path = g_build_filename(folder, name, NULL);
        GModule *module = g_module_open(path, G_MODULE_BIND_LAZY);
        if (module) g_module_make_resident(module);
        g_free(path);
    }
    if (dir) g_dir_close(dir);
    g_free(folder);
    g_free(libdir);
}

// glibc raises the size from which it maps a block by itself (up to 32 MB) as mapped blocks are freed, and
// keeps freed blocks under that size in its heap. Fixed at 64 KiB, large blocks go back to the system when freed.
void fc_map_large_blocks(void) { mallopt(M_MMAP_THRESHOLD, 64 * 1024); }

int fc_flush_stdout(void) {
    if (fflush(stdout) != 0) return errno ? errno : -1;
    return ferror(stdout) ? -1 : 0;
}

void fc_line_buffer_stdout(void) { setvbuf(stdout, NULL, _IOLBF, 0); }

int fc_init(const char *argv0) {
    static int started = 0;
    static GMutex lock;
    g_mutex_lock(&lock);
    int rc = 0;
    if (!started) {
        rc = vips_init(argv0 ? argv0 : "facecrop");
        if (rc == 0) {
            if (modules_on_demand) load_modules(modules_at_start, G_N_ELEMENTS(modules_at_start));
            // Every image is opened once per run: libvips' operation cache would only hold memory.
            vips_cache_set_max(0);
            // libvips reports decode trouble as GLib warnings on stderr as well as in its error buffer;
            // facecrop prints one line per problem from the error buffer, so the warnings are kept, not printed.
            g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE, keep_warning, NULL);
            // libvips reports leaked images and regions (VIPS_LEAK=1, see scripts/sanitize.sh) only when
            // it shuts down, which a process that just exits never does.
            if (g_getenv("VIPS_LEAK")) atexit(vips_shutdown);
            started = 1;
        }
    }
    g_mutex_unlock(&lock);
    return rc;
}

// With untrusted loaders blocked, facecrop reads only the formats it documents: JPEG, PNG, WebP, TIFF, GIF and
// HEIF (HEIC/AVIF). libvips 8.14 does not flag every other loader as untrusted (its matrix loader reads a
// text file of numbers as an image, for one).
static gint default_formats_only = 1;

static GMutex block_lock;

void fc_block_untrusted(int block) {
    if (!block) fc_load_all_modules();
    g_mutex_lock(&block_lock);
    vips_block_untrusted_set(block ? TRUE : FALSE);
    g_atomic_int_set(&default_formats_only, block ? 1 : 0);
    g_mutex_unlock(&block_lock);
}

static int is_default_format(const char *loader) {
    static const char *const prefixes[] = {"VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadWebp",
                                           "VipsForeignLoadTiff", "VipsForeignLoadNsgif", "VipsForeignLoadHeif"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (vips_isprefix(prefixes[i], loader)) return 1;
    return 0;
}

// libvips' error buffer is process-wide: with images read on several threads, one thread's failure message
// can be taken by another. Every call that may fail holds the lock shared; to learn why an input failed,
// facecrop reads it again holding the lock exclusively (nothing else runs in libvips meanwhile).
static pthread_rwlock_t vips_lock;
static pthread_once_t vips_lock_once = PTHREAD_ONCE_INIT;
static __thread int holds_exclusive;

static void vips_lock_init(void) {
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    // A waiting exclusive holder goes first: parallel readers cannot starve it. (Readers never nest.)
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&vips_lock, &attr);
    pthread_rwlockattr_destroy(&attr);
}

void fc_lock_shared(void) {
    pthread_once(&vips_lock_once, vips_lock_init);
    if (!holds_exclusive) pthread_rwlock_rdlock(&vips_lock);
}

void fc_unlock_shared(void) {
    if (!holds_exclusive) pthread_rwlock_unlock(&vips_lock);
}

void fc_lock_exclusive(void) {
    pthread_once(&vips_lock_once, vips_lock_init);
    pthread_rwlock_wrlock(&vips_lock);
    holds_exclusive = 1;
}

void fc_unlock_exclusive(void) {
    holds_exclusive = 0;
    pthread_rwlock_unlock(&vips_lock);
}

int fc_load_all_modules(void) {
    if (!modules_on_demand || g_atomic_int_get(&all_modules_loaded)) return 0;
    const int exclusive_already = holds_exclusive;
    if (!exclusive_already) fc_lock_exclusive();
    int opened = 0;
    if (!g_atomic_int_get(&all_modules_loaded)) {
        load_modules(NULL, 0);
        // libvips' flags are set on the loaders known when they are set: the new ones are blocked too.
        g_mutex_lock(&block_lock);
        vips_block_untrusted_set(g_atomic_int_get(&default_formats_only) ? TRUE : FALSE);
        g_mutex_unlock(&block_lock);
        vips_error_clear();  // the failed search's message (nothing else is in libvips)
        g_atomic_int_set(&all_modules_loaded, 1);
        opened = 1;
    }
    if (!exclusive_already) fc_unlock_exclusive();
    return opened;
}

char *fc_error_copy(void) {
    char *text = vips_error_buffer_copy();
    if ((!text || !*text) && last_warning[0]) {
        g_free(text);
        text = g_strdup(last_warning);
    }
    last_warning[0] = 0;
    return text;
}
void fc_free(void *p) { g_free(p); }
void fc_unref(FCImage *image) { if (image) g_object_unref(image); }

static VipsFailOn fail_level(int fail_on_truncated) {
    return fail_on_truncated ? VIPS_FAIL_ON_TRUNCATED : VIPS_FAIL_ON_NONE;
}

// The loader that knows a source: 0 with its name, FC_NOT_AN_IMAGE when no loader knows the source, or
// FC_BLOCKED when its loader is blocked.
static int check_loader(VipsSource *source, const char **loader) {
    *loader = vips_foreign_find_load_source(source);
    if (!*loader) return FC_NOT_AN_IMAGE;
    VipsOperationClass *class = VIPS_OPERATION_CLASS(g_type_class_ref(g_type_from_name(*loader)));
    const int blocked = (class && (class->flags & VIPS_OPERATION_BLOCKED)) ||
                        (g_atomic_int_get(&default_formats_only) && !is_default_format(*loader));
    if (class) g_type_class_unref(class);
    return blocked ? FC_BLOCKED : 0;
}

// Opens an image from a source (taking over the caller's reference): the loader is found from the first bytes,
// and one that is blocked is refused before it runs.
static int open_source(VipsSource *source, int sequential, int fail_on_truncated, int shrink, FCImage **out) {
    const char *loader;
    const int checked = check_loader(source, &loader);
    if (checked != 0) {
        g_object_unref(source);
        return checked;
    }
    VipsAccess access = sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM;
    VipsImage *image;
    if (shrink > 1 && vips_isprefix("VipsForeignLoadJpeg", loader))
        image = vips_image_new_from_source(source, "", "access", access, "fail_on", fail_level(fail_on_truncated),
                                           "shrink", shrink, NULL);
    else
        image = vips_image_new_from_source(source, "", "access", access, "fail_on", fail_level(fail_on_truncated),
                                           NULL);
    g_object_unref(source);
    if (!image) return -1;
    *out = image;
    return 0;
}

// libvips 8.14's thumbnail_source does not hand its own fail_on to the loader: the loader's option string does.
static int thumbnail_source(VipsSource *source, int width, int height, int fail_on_truncated, FCImage **out) {
    const char *loader;
    const int checked = check_loader(source, &loader);
    if (checked != 0) {
        g_object_unref(source);
        return checked;
    }
    int rc = vips_thumbnail_source(source, out, width, "height", height, "size", VIPS_SIZE_BOTH, "option_string",
                                   fail_on_truncated ? "fail_on=truncated" : "", NULL);
    g_object_unref(source);
    return rc;
}

int fc_open(const char *path, int sequential, int fail_on_truncated, int shrink, FCImage **out) {
    *out = NULL;
    last_warning[0] = 0;
    VipsSource *source = vips_source_new_from_file(path);
    if (!source) return -1;
    return open_source(source, sequential, fail_on_truncated, shrink, out);
}

int fc_thumbnail(const char *path, int width, int height, int fail_on_truncated, FCImage **out) {
    *out = NULL;
    last_warning[0] = 0;
    VipsSource *source = vips_source_new_from_file(path);
    if (!source) return -1;
    return thumbnail_source(source, width, height, fail_on_truncated, out);
}

FCBlob *fc_blob_copy(const void *data, size_t length) { return vips_blob_copy(data, length); }
void fc_blob_unref(FCBlob *blob) { if (blob) vips_area_unref(VIPS_AREA(blob)); }

int fc_open_blob(FCBlob *blob, int sequential, int fail_on_truncated, int shrink, FCImage **out) {
    *out = NULL;
    last_warning[0] = 0;
    VipsSource *source = vips_source_new_from_blob(blob);
    if (!source) return -1;
    return open_source(source, sequential, fail_on_truncated, shrink, out);
}

int fc_thumbnail_blob(FCBlob *blob, int width, int height, int fail_on_truncated, FCImage **out) {
    *out = NULL;
    last_warning[0] = 0;
    VipsSource *source = vips_source_new_from_blob(blob);
    if (!source) return -1;
    return thumbnail_source(source, width, height, fail_on_truncated, out);
}

int fc_preview(FCImage *in, int box, FCImage **out) {
    *out = NULL;
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 8);
    VipsImage *x = in;
    int rc = 0;
    // Coded pixels (a LabQ TIFF packs CIELAB in 4 bytes) are decoded first: their 4th byte is no alpha.
    if (in->Coding != VIPS_CODING_NONE) {
        rc = vips_image_decode(in, &t[7]);
        x = t[7];
    }
    // Like vips_thumbnail: resample premultiplied, so transparent pixels' colour does not bleed in.
    const int alpha = rc == 0 && vips_image_hasalpha(x);
    if (alpha) {
        rc = vips_premultiply(x, &t[4], NULL);
        x = t[4];
    }
    // Shrink by a whole factor first, never an axis below one pixel (a 1x100000 image stays 1 wide).
    const int k = rc == 0 ? (int)((double)VIPS_MAX(x->Xsize, x->Ysize) / box) : 0;
    if (k >= 2) {
        rc = vips_shrinkh(x, &t[0], VIPS_MIN(k, x->Xsize), NULL) ||
             vips_shrinkv(t[0], &t[1], VIPS_MIN(k, t[0]->Ysize), NULL);
        x = t[1];
    }
    const double rest = rc == 0 ? (double)box / VIPS_MAX(x->Xsize, x->Ysize) : 1;
    if (rc == 0 && rest != 1) {
        rc = vips_resize(x, &t[2], rest, NULL);
        x = t[2];
    }
    if (rc == 0 && alpha) {
        rc = vips_unpremultiply(x, &t[5], NULL) || vips_cast(t[5], &t[6], vips_image_get_format(in), NULL);
        x = t[6];
    }
    if (rc == 0 && (t[3] = vips_image_copy_memory(x)) == NULL) rc = -1;
    if (rc == 0) rc = vips_autorot(t[3], out, NULL);
    g_object_unref(scope);
    return rc;
}

size_t fc_decoded_bytes(const FCImage *image) { return VIPS_IMAGE_SIZEOF_IMAGE(image); }

static int int_field(FCImage *image, const char *name) {
    int value = 0;
    if (vips_image_get_typeof(image, name) && vips_image_get_int(image, name, &value) == 0) return value;
    return 0;
}

// Bytes per pixel a decoder that holds the whole frame takes, or 0 for one that streams. libjpeg keeps every
// DCT coefficient of a progressive JPEG (2 bytes per sample); libvips' PNG loader reads an interlaced PNG
// whole; the GIF loader keeps the frame and the previous one (RGBA); libwebp and libheif decode the whole
// picture (HEIF through planes of its own as well).
int fc_whole_frame_format(FCImage *image, int *bytes_per_pixel) {
    const char *loader = NULL;
    *bytes_per_pixel = 0;
    if (!vips_image_get_typeof(image, VIPS_META_LOADER) || vips_image_get_string(image, VIPS_META_LOADER, &loader) != 0)
        return FC_STREAMED;
    const int bands = vips_image_get_bands(image);
    const int sample = (int)vips_format_sizeof(vips_image_get_format(image));
    if (vips_isprefix("jpegload", loader) && int_field(image, "jpeg-multiscan")) {
        *bytes_per_pixel = 2 * bands;
        return FC_PROGRESSIVE_JPEG;
    }
    if (vips_isprefix("pngload", loader) && int_field(image, "interlaced")) {
        *bytes_per_pixel = bands * sample;
        return FC_INTERLACED_PNG;
    }
    if (vips_isprefix("gifload", loader)) {
        *bytes_per_pixel = 8;
        return FC_GIF;
    }
    if (vips_isprefix("webpload", loader)) {
        *bytes_per_pixel = 4;
        return FC_WEBP_WHOLE;
    }
    if (vips_isprefix("heifload", loader)) {
        *bytes_per_pixel = bands * sample + 2;
        return FC_HEIF_WHOLE;
    }
    return FC_STREAMED;
}

int fc_width(const FCImage *image) { return vips_image_get_width(image); }
int fc_height(const FCImage *image) { return vips_image_get_height(image); }
int fc_bands(const FCImage *image) { return vips_image_get_bands(image); }
int fc_has_alpha(FCImage *image) { return vips_image_hasalpha(image); }
int fc_has_icc_profile(FCImage *image) { return vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0; }
int fc_orientation(FCImage *image) { return vips_image_get_orientation(image); }

char *fc_loader(FCImage *image) {
    const char *name = NULL;
    if (vips_image_get_typeof(image, VIPS_META_LOADER) && vips_image_get_string(image, VIPS_META_LOADER, &name) == 0)
        return g_strdup(name);
    return g_strdup("");
}

int fc_is_srgb_as_float(FCImage *image) {
    VipsBandFormat format = vips_image_get_format(image);
    if (vips_image_get_interpretation(image) != VIPS_INTERPRETATION_scRGB ||
        (format != VIPS_FORMAT_FLOAT && format != VIPS_FORMAT_DOUBLE))
        return 0;
    double max = 0;
    return vips_max(image, &max, NULL) == 0 && max > 2;
}

int fc_tag_srgb(FCImage *in, FCImage **out) {
    return vips_copy(in, out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
}

char *fc_interpretation(FCImage *image) {
    return g_strdup(vips_enum_nick(VIPS_TYPE_INTERPRETATION, vips_image_get_interpretation(image)));
}

int fc_to_srgb(FCImage *in, FCImage **out) {
    *out = NULL;
    VipsInterpretation interpretation = vips_image_guess_interpretation(in);
    int is8bit = vips_image_get_format(in) == VIPS_FORMAT_UCHAR;
    if (is8bit && (interpretation == VIPS_INTERPRETATION_sRGB || interpretation == VIPS_INTERPRETATION_B_W)) {
        g_object_ref(in);
        *out = in;
        return 0;
    }
    if (interpretation == VIPS_INTERPRETATION_CMYK)
        // Use the embedded profile when there is one, libvips' built-in CMYK profile otherwise.
        return vips_icc_transform(in, out, "srgb", "embedded", TRUE, "input_profile", "cmyk", NULL);
    return vips_colourspace(in, out, VIPS_INTERPRETATION_sRGB, NULL);
}

int fc_profile_to_srgb(FCImage *in, FCImage **out) {
    *out = NULL;
    if (!vips_image_get_typeof(in, VIPS_META_ICC_NAME)) {
        g_object_ref(in);
        *out = in;
        return 0;
    }
    // Relative colorimetric, as browsers show tagged images; libvips attaches sRGB's profile to the result.
    return vips_icc_transform(in, out, "srgb", "embedded", TRUE, "intent", VIPS_INTENT_RELATIVE, NULL);
}

int fc_flatten_white(FCImage *in, FCImage **out) {
    *out = NULL;
    if (!vips_image_hasalpha(in)) {
        g_object_ref(in);
        *out = in;
        return 0;
    }
    VipsInterpretation interpretation = vips_image_guess_interpretation(in);
    double max_alpha = interpretation == VIPS_INTERPRETATION_RGB16 || interpretation == VIPS_INTERPRETATION_GREY16 ? 65535 : 255;
    double white[1] = {max_alpha};
    VipsArrayDouble *background = vips_array_double_new(white, 1);
    int rc = vips_flatten(in, out, "background", background, "max_alpha", max_alpha, NULL);
    vips_area_unref(VIPS_AREA(background));
    return rc;
}

int fc_rgb8(FCImage *in, uint8_t **out, int *width, int *height) {
    *out = NULL;
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 5);
    int rc = -1;
    const int cmyk = vips_image_guess_interpretation(in) == VIPS_INTERPRETATION_CMYK;
    if ((cmyk ? fc_to_srgb(in, &t[0]) : vips_colourspace(in, &t[0], VIPS_INTERPRETATION_sRGB, NULL)) == 0 &&
        fc_flatten_white(t[0], &t[1]) == 0 && vips_cast_uchar(t[1], &t[2], NULL) == 0) {
        VipsImage *rgb = t[2];
        if (vips_image_get_bands(rgb) > 3 && vips_extract_band(rgb, &t[3], 0, "n", 3, NULL) == 0) rgb = t[3];
        if (vips_image_get_bands(rgb) == 3) {
            size_t size = 0;
            *out = vips_image_write_to_memory(rgb, &size);
            if (*out) {
                *width = vips_image_get_width(rgb);
                *height = vips_image_get_height(rgb);
                rc = 0;
            }
        } else {
            vips_error("facecrop", "cannot convert a %d-band image to RGB", vips_image_get_bands(rgb));
        }
    }
    g_object_unref(scope);
    return rc;
}

int fc_from_rgb8(const uint8_t *rgb, int width, int height, FCImage **out) {
    VipsImage *raw = vips_image_new_from_memory_copy(rgb, (size_t)width * height * 3, width, height, 3, VIPS_FORMAT_UCHAR);
    if (!raw) return -1;
    int rc = vips_copy(raw, out, "interpretation", VIPS_INTERPRETATION_sRGB, NULL);
    g_object_unref(raw);
    return rc;
}

int fc_extract(FCImage *in, int left, int top, int width, int height, FCImage **out) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

int fc_resize_to(FCImage *in, int width, int height, FCImage **out) {
    *out = NULL;
    int w = vips_image_get_width(in), h = vips_image_get_height(in);
    if (w == width && h == height) {
        g_object_ref(in);
        *out = in;
        return 0;
    }
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 1);
    int rc = vips_resize(in, &t[0], (double)width / w, "vscale", (double)height / h, NULL);
    if (rc == 0) {
        if (vips_image_get_width(t[0]) == width && vips_image_get_height(t[0]) == height) {
            g_object_ref(t[0]);
            *out = t[0];
        } else {
            // libvips rounds the scaled size; settle the last pixel by repeating or dropping an edge.
            rc = vips_embed(t[0], out, 0, 0, width, height, "extend", VIPS_EXTEND_COPY, NULL);
        }
    }
    g_object_unref(scope);
    return rc;
}

// libvips 8.14's HEIF loader attaches its EXIF and XMP blobs without copying them: the bytes belong to the
// loader and are freed with it, while every image derived from the load still points at them. An in-memory
// copy outlives the loader, so saving it read freed memory (found by fuzzing: a HEIC with EXIF, cropped to
// JPEG; Fuzz/regressions/heic-exif-use-after-free.heic). Give such an image its own copies.
static void own_blobs(VipsImage *image) {
    gchar **names = vips_image_get_fields(image);
    for (gchar **name = names; *name; name++) {
        const void *data;
        size_t length;
        if (vips_image_get_typeof(image, *name) == VIPS_TYPE_BLOB &&
            vips_image_get_blob(image, *name, &data, &length) == 0)
            vips_image_set_blob_copy(image, *name, data, length);
    }
    g_strfreev(names);
}

typedef struct {
    void *start;
    size_t size;
} Mapping;

static void unmap_pixels(VipsImage *image, Mapping *mapping) {
    (void)image;
    fc_unmap_huge_pages(mapping->start, mapping->size);
    g_free(mapping);
}

// An empty memory image for `in`'s pixels (8 MB or more, not coded) in pages that may be huge (huge_pages.h).
// NULL otherwise.
static VipsImage *huge_page_image(VipsImage *in) {
    const size_t size = VIPS_IMAGE_SIZEOF_IMAGE(in);
    if (in->Coding != VIPS_CODING_NONE || size < FC_HUGE_PAGES_MIN) return NULL;
    void *start = fc_map_huge_pages(size);
    if (!start) return NULL;
    VipsImage *image = vips_image_new_from_memory(start, size, in->Xsize, in->Ysize, in->Bands, in->BandFmt);
    if (!image) {
        fc_unmap_huge_pages(start, size);
        return NULL;
    }
    Mapping *mapping = g_new(Mapping, 1);
    mapping->start = start;
    mapping->size = size;
    g_signal_connect(image, "postclose", G_CALLBACK(unmap_pixels), mapping);
    return image;
}

int fc_copy_memory(FCImage *in, FCImage **out) {
    // What vips_image_copy_memory copies (an image not in memory yet), in pages that may be huge.
    VipsImage *pages = in->dtype == VIPS_IMAGE_PARTIAL || in->dtype == VIPS_IMAGE_OPENIN ? huge_page_image(in) : NULL;
    if (pages && vips_image_write(in, pages)) {
        g_object_unref(pages);
        *out = NULL;
        return -1;
    }
    *out = pages ? pages : vips_image_copy_memory(in);
    if (*out && *out != in) own_blobs(*out);
    return *out ? 0 : -1;
}

int fc_autorot(FCImage *in, FCImage **out) { return vips_autorot(in, out, NULL); }

int fc_rot(FCImage *in, int quarters, FCImage **out) {
    static const VipsAngle angles[] = {VIPS_ANGLE_D0, VIPS_ANGLE_D90, VIPS_ANGLE_D180, VIPS_ANGLE_D270};
    if (quarters < 1 || quarters > 3) {
        vips_error("facecrop", "%s", "quarter turns must be 1, 2 or 3");
        return -1;
    }
    return vips_rot(in, out, angles[quarters], NULL);
}

int fc_attention_center(FCImage *in, int width, int height, int *x, int *y) {
    VipsImage *crop = NULL;
    int rc = vips_smartcrop(in, &crop, width, height, "interesting", VIPS_INTERESTING_ATTENTION, "attention_x", x,
                            "attention_y", y, NULL);
    if (crop) g_object_unref(crop);
    return rc;
}

// A copy of `in` without the metadata a stripped output must not carry: EXIF (camera, GPS position), XMP, IPTC,
// the ICC profile and comments. The savers' own "strip" is not enough: libvips 8.14's WebP saver ignores it.
static int without_metadata(VipsImage *in, VipsImage **out) {
    if (vips_copy(in, out, NULL)) return -1;
    gchar **fields = vips_image_get_fields(*out);
    for (int i = 0; fields[i]; i++) {
        const char *f = fields[i];
        if (vips_isprefix("exif-", f) || vips_isprefix("xmp-", f) || vips_isprefix("iptc-", f) ||
            vips_isprefix("png-comment-", f) || strcmp(f, VIPS_META_ICC_NAME) == 0 || strcmp(f, "gif-comment") == 0)
            vips_image_remove(*out, f);
    }
    g_strfreev(fields);
    return 0;
}

// A WebP file's bytes without its EXIF, XMP and ICCP chunks (and their flags in VP8X): libvips 8.14's WebP saver
// writes an EXIF block of its own (resolution, size, orientation) even for an image without one. Returns the
// new length, or 0 for bytes that are not a well-formed WebP file (left untouched).
static size_t webp_without_metadata(unsigned char *p, size_t n) {
    if (n < 12 || memcmp(p, "RIFF", 4) != 0 || memcmp(p + 8, "WEBP", 4) != 0) return 0;
    for (size_t at = 12; at < n;) {  // every chunk whole before anything moves
        if (n - at < 8) return 0;
        const size_t size = p[at + 4] | p[at + 5] << 8 | p[at + 6] << 16 | (size_t)p[at + 7] << 24;
        if (size + (size & 1) > n - at - 8) return 0;
        at += 8 + size + (size & 1);
    }
    size_t out = 12;
    for (size_t at = 12; at < n;) {
        const size_t size = p[at + 4] | p[at + 5] << 8 | p[at + 6] << 16 | (size_t)p[at + 7] << 24;
        const size_t whole = 8 + size + (size & 1);
        if (memcmp(p + at, "VP8X", 4) == 0 && size >= 1) p[at + 8] &= (unsigned char)~(0x20 | 0x08 | 0x04);
        if (memcmp(p + at, "EXIF", 4) != 0 && memcmp(p + at, "XMP ", 4) != 0 && memcmp(p + at, "ICCP", 4) != 0) {
            memmove(p + out, p + at, whole);
            out += whole;
        }
        at += whole;
    }
    const size_t riff = out - 8;
    p[4] = riff & 0xff, p[5] = riff >> 8 & 0xff, p[6] = riff >> 16 & 0xff, p[7] = riff >> 24 & 0xff;
    return out;
}

static int save_file(FCImage *in, const char *path, FCFormat format, int quality, int strip);
static int save_memory(FCImage *in, FCFormat format, int quality, int strip, void **out, size_t *length);

int fc_save_memory(FCImage *in, FCFormat format, int quality, int strip, void **out, size_t *length) {
    *out = NULL;
    *length = 0;
    if (!strip) return save_memory(in, format, quality, 0, out, length);
    VipsImage *bare = NULL;
    int rc = without_metadata(in, &bare) || save_memory(bare, format, quality, 1, out, length) ? -1 : 0;
    if (bare) g_object_unref(bare);
    if (rc == 0 && format == FC_WEBP && (*length = webp_without_metadata(*out, *length)) == 0) {
        vips_error("facecrop", "%s", "the WebP encoder's output is not a WebP file");
        g_free(*out);
        *out = NULL;
        rc = -1;
    }
    return rc;
}

int fc_save(FCImage *in, const char *path, FCFormat format, int quality, int strip) {
    if (!strip) return save_file(in, path, format, quality, 0);
    if (format == FC_WEBP) {  // encoded whole in memory either way: its metadata chunks are cut out there
        void *bytes = NULL;
        size_t length = 0;
        if (fc_save_memory(in, format, quality, strip, &bytes, &length)) return -1;
        FILE *file = fopen(path, "wb");
        int error = file ? 0 : errno;
        if (file && fwrite(bytes, 1, length, file) != length) error = errno ? errno : EIO;
        if (file && fclose(file) != 0 && error == 0) error = errno;
        g_free(bytes);
        if (error == 0) return 0;
        vips_error_system(error, "facecrop", "cannot write '%s'", path);
        return -1;
    }
    VipsImage *bare = NULL;
    const int rc = without_metadata(in, &bare) || save_file(bare, path, format, quality, 1) ? -1 : 0;
    if (bare) g_object_unref(bare);
    return rc;
}

static int save_file(FCImage *in, const char *path, FCFormat format, int quality, int strip) {
    int q = quality > 0 ? quality : 80;
    switch (format) {
    case FC_JPEG:
        return vips_jpegsave(in, path, "Q", q, "strip", strip, NULL);
    case FC_PNG:
        return vips_pngsave(in, path, "strip", strip, NULL);
    case FC_WEBP:
        return vips_webpsave(in, path, "Q", q, "strip", strip, NULL);
    case FC_TIFF:
        return vips_tiffsave(in, path, "strip", strip, "compression", VIPS_FOREIGN_TIFF_COMPRESSION_DEFLATE, NULL);
    case FC_HEIF:
        return vips_heifsave(in, path, "Q", q, "strip", strip, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_HEVC,
                             NULL);
    case FC_AVIF:
        return vips_heifsave(in, path, "Q", q, "strip", strip, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1,
                             NULL);
    }
    vips_error("facecrop", "unknown output format %d", (int)format);
    return -1;
}

static int save_memory(FCImage *in, FCFormat format, int quality, int strip, void **out, size_t *length) {
    int q = quality > 0 ? quality : 80;
    switch (format) {
    case FC_JPEG:
        return vips_jpegsave_buffer(in, out, length, "Q", q, "strip", strip, NULL);
    case FC_PNG:
        return vips_pngsave_buffer(in, out, length, "strip", strip, NULL);
    case FC_WEBP:
        return vips_webpsave_buffer(in, out, length, "Q", q, "strip", strip, NULL);
    case FC_TIFF:
        return vips_tiffsave_buffer(in, out, length, "strip", strip, "compression", VIPS_FOREIGN_TIFF_COMPRESSION_DEFLATE,
                                    NULL);
    case FC_HEIF:
        return vips_heifsave_buffer(in, out, length, "Q", q, "strip", strip, "compression",
                                    VIPS_FOREIGN_HEIF_COMPRESSION_HEVC, NULL);
    case FC_AVIF:
        return vips_heifsave_buffer(in, out, length, "Q", q, "strip", strip, "compression",
                                    VIPS_FOREIGN_HEIF_COMPRESSION_AV1, NULL);
    }
    vips_error("facecrop", "unknown output format %d", (int)format);
    return -1;
}

int fc_can_save(FCFormat format) {
    const char *saver = format == FC_JPEG ? "jpegsave" : format == FC_PNG ? "pngsave" : format == FC_WEBP ? "webpsave"
                        : format == FC_TIFF ? "tiffsave" : "heifsave";
    return vips_type_find("VipsOperation", saver) != 0;
}

int fc_compare(FCImage *a, FCImage *b, double threshold, double *max_delta, double *mismatch_fraction) {
    if (vips_image_get_width(a) != vips_image_get_width(b) || vips_image_get_height(a) != vips_image_get_height(b) ||
        vips_image_get_bands(a) != vips_image_get_bands(b)) {
        vips_error("facecrop", "images differ in size or bands: %dx%dx%d vs %dx%dx%d", vips_image_get_width(a),
                   vips_image_get_height(a), vips_image_get_bands(a), vips_image_get_width(b),
                   vips_image_get_height(b), vips_image_get_bands(b));
        return -1;
    }
    VipsObject *scope = VIPS_OBJECT(vips_image_new());
    VipsImage **t = (VipsImage **)vips_object_local_array(scope, 4);
    double mean = 0;
    int rc = -1;
    if (vips_subtract(a, b, &t[0], NULL) == 0 && vips_abs(t[0], &t[1], NULL) == 0 &&
        vips_max(t[1], max_delta, NULL) == 0 && vips_more_const1(t[1], &t[2], threshold, NULL) == 0 &&
        vips_bandor(t[2], &t[3], NULL) == 0 && vips_avg(t[3], &mean, NULL) == 0) {
        *mismatch_fraction = mean / 255.0;
        rc = 0;
    }
    g_object_unref(scope);
    return rc;
}

int fc_sha256_file(const char *path, char *hex) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
    guchar buffer[1 << 16];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, f)) > 0) g_checksum_update(sum, buffer, n);
    int failed = ferror(f);
    fclose(f);
    if (!failed) g_strlcpy(hex, g_checksum_get_string(sum), 65);
    g_checksum_free(sum);
    if (failed) errno = EIO;
    return failed ? -1 : 0;
}
