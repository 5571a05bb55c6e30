// dlib's shape predictor behind a C header, with a raw binary cache of the model. try/catch at every entry.
#include "CLandmarks.h"

// Debian's dlib/config.h has dlib solve its small SVDs (find_similarity_transform) with BLAS and LAPACK, which
// made this shim link libdlib, libblas and liblapack. With these undefined, dlib's own code does that work, and
// the shim needs no library at all (the shape predictor is all templates: libdlib was linked for nothing). config.h
// is read only through these two headers, both guarded, so the undefs hold for every dlib header after them.
#include <dlib/assert.h>
#include <dlib/test_for_odr_violations.h>
#undef DLIB_USE_BLAS
#undef DLIB_USE_LAPACK

#include <dlib/image_processing/shape_predictor.h>
#include <dlib/serialize.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <string>
#include <vector>
#include "guarded.hpp"

using Shape = dlib::matrix<float, 0, 1>;
using Forests = std::vector<std::vector<dlib::impl::regression_tree>>;
using Anchors = std::vector<std::vector<unsigned long>>;
using Deltas = std::vector<std::vector<dlib::vector<float, 2>>>;

// ---------------------------------------------------------------------------------------------------------
// Access to shape_predictor's private members, which the cache must read and write. dlib offers no accessor,
// and the friends that can reach them (serialize/deserialize) use the slow portable format the cache exists
// to avoid. This is the explicit-instantiation idiom: the standard exempts the names used in an explicit
// instantiation from access checking ([temp.explicit] in C++17), so instantiating Steal with a pointer to a
// private member is valid, and the friend function it defines hands that pointer out. Used by the cache code
// and by clm_fit, which replays shape_predictor::operator() to keep sub-pixel points; nothing writes to a
// predictor after it is loaded.
namespace {
template <typename Tag, typename Tag::type Pointer> struct Steal {
    friend typename Tag::type member(Tag) { return Pointer; }
};
struct InitialShapeTag {
    using type = Shape dlib::shape_predictor::*;
    friend type member(InitialShapeTag);
};
struct ForestsTag {
    using type = Forests dlib::shape_predictor::*;
    friend type member(ForestsTag);
};
struct AnchorsTag {
    using type = Anchors dlib::shape_predictor::*;
    friend type member(AnchorsTag);
};
struct DeltasTag {
    using type = Deltas dlib::shape_predictor::*;
    friend type member(DeltasTag);
};
template struct Steal<InitialShapeTag, &dlib::shape_predictor::initial_shape>;
template struct Steal<ForestsTag, &dlib::shape_predictor::forests>;
template struct Steal<AnchorsTag, &dlib::shape_predictor::anchor_idx>;
template struct Steal<DeltasTag, &dlib::shape_predictor::deltas>;

// For a const or mutable predictor.
template <typename P> auto &initial_shape(P &p) { return p.*member(InitialShapeTag()); }
template <typename P> auto &forests(P &p) { return p.*member(ForestsTag()); }
template <typename P> auto &anchors(P &p) { return p.*member(AnchorsTag()); }
template <typename P> auto &deltas(P &p) { return p.*member(DeltasTag()); }
} // namespace

// ---------------------------------------------------------------------------------------------------------
// The caller's packed RGB as a dlib image, without a copy (dlib's generic image interface).
namespace clm {
struct RGBView {
    const uint8_t *data;
    long rows, columns;
};
long num_rows(const RGBView &v) { return v.rows; }
long num_columns(const RGBView &v) { return v.columns; }
const void *image_data(const RGBView &v) { return v.data; }
long width_step(const RGBView &v) { return v.columns * 3; }
} // namespace clm
namespace dlib {
template <> struct image_traits<clm::RGBView> {
    typedef rgb_pixel pixel_type;
};
} // namespace dlib

struct CLMPredictor {
    dlib::shape_predictor model;
    bool from_cache = false;
    std::string written_cache; // empty unless this load wrote the cache
};

namespace {

using facecrop::guarded;
using facecrop::set_error;

// ---------------------------------------------------------------------------------------------------------
// The raw cache. Native byte order, one file per model name in the cache folder, keyed by the model's size
// and modification time in its header:
//   magic "FCLMRAW1", u32 0x01020304 (byte order), u32 format version, u64 model size, i64 mtime s, i64 mtime ns,
//   u64 shape length (2 x parts), f32 initial shape[shape length], u64 cascades, then per cascade:
//     u64 feature pixels, u32 anchor[pixels], f32 delta (x, y)[pixels], u64 trees, then per tree:
//       u64 splits, (u32 idx1, u32 idx2, f32 threshold)[splits], f32 leaf values[(splits + 1) x shape length]
//   and the magic again at the end.
// Every count is checked against the bytes left and against dlib's requirements before it is used, so a
// damaged or truncated cache is rejected (and replaced), never trusted.
constexpr char kMagic[8] = {'F', 'C', 'L', 'M', 'R', 'A', 'W', '1'};
constexpr uint32_t kByteOrder = 0x01020304, kVersion = 1;

struct ModelKey {
    uint64_t size;
    int64_t seconds, nanoseconds;
};

// Fails with errno set (EISDIR/EINVAL for something that is not a regular file).
bool model_key(const char *path, ModelKey &key) {
    struct stat st;
    if (stat(path, &st) != 0) return false;
    if (!S_ISREG(st.st_mode)) return errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL, false;
    key = {uint64_t(st.st_size), int64_t(st.st_mtim.tv_sec), int64_t(st.st_mtim.tv_nsec)};
    return true;
}

std::string cache_path(const std::string &dir, const char *model_path) {
    return (std::filesystem::path(dir) / (std::filesystem::path(model_path).filename().string() + ".facecrop-raw"))
        .string();
}

struct Writer {
    FILE *file;
    bool ok = true;
    void bytes(const void *p, size_t n) {
        if (ok && n > 0 && std::fwrite(p, 1, n, file) != n) ok = false;
    }
    template <typename T> void value(T v) { bytes(&v, sizeof v); }
};

struct Mapping {
    void *data;
    size_t size;
    Mapping(int fd, size_t size)
        : data(fd < 0 ? MAP_FAILED : mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0)), size(size) {}
    ~Mapping() {
        if (data != MAP_FAILED) munmap(data, size);
    }
    Mapping(const Mapping &) = delete;
    Mapping &operator=(const Mapping &) = delete;
};

// Reads from the cache file mapped into memory (one pass, no per-value system calls).
struct Reader {
    const char *next;
    uint64_t left; // bytes not yet read
    bool bytes(void *p, size_t n) {
        if (n > left) return false;
        if (n > 0) std::memcpy(p, next, n);
        next += n;
        left -= n;
        return true;
    }
    template <typename T> bool value(T &v) { return bytes(&v, sizeof v); }
    // A count of items of `item_size` bytes each, no more than what is left in the file.
    bool count(uint64_t &n, uint64_t item_size) { return value(n) && (item_size == 0 || n <= left / item_size); }
};

bool write_cache(const dlib::shape_predictor &model, const ModelKey &key, const std::string &path) {
    const Shape &shape = initial_shape(model);
    const Forests &trees = forests(model);
    const Anchors &anchor = anchors(model);
    const Deltas &delta = deltas(model);
    const uint64_t length = uint64_t(shape.size());
    if (trees.size() != anchor.size() || anchor.size() != delta.size()) return false;

    static std::atomic<unsigned> counter{0};
    const std::string temp = path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
    FILE *file = std::fopen(temp.c_str(), "wb");
    if (!file) return false;
    std::vector<char> buffer(1 << 20);
    std::setvbuf(file, buffer.data(), _IOFBF, buffer.size());
    Writer w{file};
    w.bytes(kMagic, sizeof kMagic);
    w.value(kByteOrder);
    w.value(kVersion);
    w.value(key.size);
    w.value(key.seconds);
    w.value(key.nanoseconds);
    w.value(length);
    w.bytes(&shape(0), length * sizeof(float));
    w.value(uint64_t(trees.size()));
    for (size_t c = 0; c < trees.size() && w.ok; c++) {
        const uint64_t pixels = anchor[c].size();
        if (delta[c].size() != pixels) w.ok = false;
        w.value(pixels);
        for (unsigned long a : anchor[c]) w.value(uint32_t(a));
        for (const auto &d : delta[c]) {
            w.value(d.x());
            w.value(d.y());
        }
        w.value(uint64_t(trees[c].size()));
        for (const dlib::impl::regression_tree &tree : trees[c]) {
            if (tree.leaf_values.size() != tree.splits.size() + 1) w.ok = false;
            w.value(uint64_t(tree.splits.size()));
            for (const auto &s : tree.splits) {
                if (s.idx1 >= pixels || s.idx2 >= pixels) w.ok = false;
                w.value(uint32_t(s.idx1));
                w.value(uint32_t(s.idx2));
                w.value(s.thresh);
            }
            for (const Shape &leaf : tree.leaf_values) {
                if (uint64_t(leaf.size()) != length) w.ok = false;
                if (w.ok) w.bytes(&leaf(0), length * sizeof(float));
            }
        }
    }
    w.bytes(kMagic, sizeof kMagic);
    const bool flushed = std::fflush(file) == 0 && fsync(fileno(file)) == 0;
    const bool closed = std::fclose(file) == 0;
    if (!(w.ok && flushed && closed) || std::rename(temp.c_str(), path.c_str()) != 0) {
        std::remove(temp.c_str());
        return false;
    }
    return true;
}

bool read_cache(const std::string &path, const ModelKey &key, dlib::shape_predictor &model) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    const bool sized = fstat(fd, &st) == 0 && st.st_size > 0;
    const Mapping mapping(sized ? fd : -1, sized ? size_t(st.st_size) : 0);
    close(fd);
    if (mapping.data == MAP_FAILED) return false;
    Reader r{static_cast<const char *>(mapping.data), mapping.size};

    char magic[8];
    uint32_t order, version;
    ModelKey stored;
    if (!r.bytes(magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof magic) != 0) return false;
    if (!r.value(order) || order != kByteOrder || !r.value(version) || version != kVersion) return false;
    if (!r.value(stored.size) || !r.value(stored.seconds) || !r.value(stored.nanoseconds)) return false;
    if (stored.size != key.size || stored.seconds != key.seconds || stored.nanoseconds != key.nanoseconds) return false;

    uint64_t length, cascades;
    if (!r.count(length, sizeof(float)) || length == 0 || length % 2 != 0) return false;
    Shape shape(long(length), 1);
    if (!r.bytes(&shape(0), length * sizeof(float))) return false;
    const uint64_t parts = length / 2;
    if (!r.count(cascades, 16)) return false;
    Forests trees(cascades);
    Anchors anchor(cascades);
    Deltas delta(cascades);
    for (uint64_t c = 0; c < cascades; c++) {
        uint64_t pixels, count;
        if (!r.count(pixels, 12)) return false;
        anchor[c].resize(pixels);
        delta[c].resize(pixels);
        for (auto &a : anchor[c]) {
            uint32_t v;
            if (!r.value(v) || v >= parts) return false;
            a = v;
        }
        for (auto &d : delta[c]) {
            float x, y;
            if (!r.value(x) || !r.value(y)) return false;
            d = dlib::vector<float, 2>(x, y);
        }
        if (!r.count(count, 8)) return false;
        trees[c].resize(count);
        for (dlib::impl::regression_tree &tree : trees[c]) {
            uint64_t splits;
            if (!r.count(splits, 12 + length * sizeof(float))) return false;
            tree.splits.resize(splits);
            for (auto &s : tree.splits) {
                uint32_t i1, i2;
                if (!r.value(i1) || !r.value(i2) || !r.value(s.thresh) || i1 >= pixels || i2 >= pixels) return false;
                s.idx1 = i1;
                s.idx2 = i2;
            }
            // dlib walks a complete binary tree: leaves = splits + 1, a power of two.
            const uint64_t leaves = splits + 1;
            if ((leaves & (leaves - 1)) != 0 || leaves > r.left / (length * sizeof(float))) return false;
            tree.leaf_values.resize(leaves);
            for (Shape &leaf : tree.leaf_values) {
                leaf.set_size(long(length), 1);
                if (!r.bytes(&leaf(0), length * sizeof(float))) return false;
            }
        }
    }
    if (!r.bytes(magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof magic) != 0 || r.left != 0) return false;
    initial_shape(model) = std::move(shape);
    forests(model) = std::move(trees);
    anchors(model) = std::move(anchor);
    deltas(model) = std::move(delta);
    return true;
}

dlib::rectangle face_rect(float x, float y, float w, float h) {
    return dlib::rectangle(std::lround(x), std::lround(y), std::lround(x + w) - 1, std::lround(y + h) - 1);
}

int check_fit_arguments(const CLMPredictor *p, const uint8_t *rgb, int width, int height, float x, float y, float w,
                        float h, const float *out, char *error, size_t error_size) {
    if (!p || !rgb || !out) return set_error(error, error_size, "a null pointer was passed"), -1;
    if (width <= 0 || height <= 0) return set_error(error, error_size, "the image has no pixels"), -1;
    if (!(std::isfinite(x) && std::isfinite(y) && std::isfinite(w) && std::isfinite(h) && w >= 1 && h >= 1))
        return set_error(error, error_size, "the face box is not a finite box of at least one pixel"), -1;
    return 0;
}

} // namespace

extern "C" CLMPredictor *clm_create(const char *model_path, const char *cache_dir, char *error, size_t error_size) {
    CLMPredictor *result = nullptr;
    guarded(error, error_size, [&] {
        if (!model_path || !*model_path) return set_error(error, error_size, "no model path was given"), -1;
        auto predictor = std::make_unique<CLMPredictor>();
        ModelKey key;
        if (!model_key(model_path, key)) return set_error(error, error_size, std::strerror(errno)), -1;
        std::string cache;
        if (cache_dir && *cache_dir) {
            cache = cache_path(cache_dir, model_path);
            try {
                predictor->from_cache = read_cache(cache, key, predictor->model);
            } catch (...) {
                predictor->from_cache = false; // e.g. out of memory on a damaged count: parse the model instead
            }
        }
        if (!predictor->from_cache) {
            try {
                dlib::deserialize(model_path) >> predictor->model;
            } catch (const dlib::serialization_error &) {
                return set_error(error, error_size, "it is not a dlib shape predictor model"), -1;
            }
            if (predictor->model.num_parts() == 0)
                return set_error(error, error_size, "it is not a dlib shape predictor (no parts)"), -1;
            if (!cache.empty()) {
                try {
                    std::error_code ignored;
                    std::filesystem::create_directories(cache_dir, ignored);
                    if (write_cache(predictor->model, key, cache)) predictor->written_cache = cache;
                } catch (...) {
                    // The cache is an optimisation: without it the next load parses the model again.
                }
            }
        }
        result = predictor.release();
        return 0;
    });
    return result;
}

extern "C" void clm_free(CLMPredictor *predictor) { delete predictor; }

extern "C" int clm_parts(const CLMPredictor *predictor) { return predictor ? int(predictor->model.num_parts()) : 0; }

extern "C" int clm_loaded_from_cache(const CLMPredictor *predictor) { return predictor && predictor->from_cache; }

extern "C" const char *clm_written_cache(const CLMPredictor *predictor) {
    return predictor && !predictor->written_cache.empty() ? predictor->written_cache.c_str() : nullptr;
}

// shape_predictor::operator() (dlib/image_processing/shape_predictor.h) step by step through the same public
// dlib functions, keeping the final points in sub-pixel precision instead of rounding them to dlib::point.
extern "C" int clm_fit(const CLMPredictor *predictor, const uint8_t *rgb, int width, int height, float box_x,
                       float box_y, float box_w, float box_h, float *xy_out, char *error, size_t error_size) {
    if (check_fit_arguments(predictor, rgb, width, height, box_x, box_y, box_w, box_h, xy_out, error, error_size) != 0) return -1;
    return guarded(error, error_size, [&] {
        using namespace dlib::impl;
        const dlib::shape_predictor &model = predictor->model;
        const Shape &initial = initial_shape(model);
        const Forests &trees = forests(model);
        const clm::RGBView image{rgb, height, width};
        const dlib::rectangle rect = face_rect(box_x, box_y, box_w, box_h);
        Shape current = initial;
        std::vector<float> feature_pixel_values;
        for (unsigned long iter = 0; iter < trees.size(); ++iter) {
            extract_feature_pixel_values(image, rect, current, initial, anchors(model)[iter], deltas(model)[iter],
                                         feature_pixel_values);
            unsigned long leaf;
            for (unsigned long i = 0; i < trees[iter].size(); ++i) current += trees[iter][i](feature_pixel_values, leaf);
        }
        const dlib::point_transform_affine to_image = unnormalizing_tform(rect);
        for (unsigned long i = 0; i < model.num_parts(); ++i) {
            const dlib::vector<double, 2> p = to_image(location(current, i));
            xy_out[2 * i] = float(p.x());
            xy_out[2 * i + 1] = float(p.y());
        }
        return 0;
    });
}

extern "C" int clm_fit_reference(const CLMPredictor *predictor, const uint8_t *rgb, int width, int height,
                                 float box_x, float box_y, float box_w, float box_h, float *xy_out, char *error,
                                 size_t error_size) {
    if (check_fit_arguments(predictor, rgb, width, height, box_x, box_y, box_w, box_h, xy_out, error, error_size) != 0) return -1;
    return guarded(error, error_size, [&] {
        const clm::RGBView image{rgb, height, width};
        const dlib::full_object_detection shape = predictor->model(image, face_rect(box_x, box_y, box_w, box_h));
        for (unsigned long i = 0; i < shape.num_parts(); ++i) {
            xy_out[2 * i] = float(shape.part(i).x());
            xy_out[2 * i + 1] = float(shape.part(i).y());
        }
        return 0;
    });
}
