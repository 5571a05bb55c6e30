// dlib's shape predictor behind a C header, kept in a compact form (16-bit leaves) with a raw binary cache of it.
// try/catch at every entry.
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

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <malloc.h>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>
#include "guarded.hpp"
#include "huge_pages.h"

using Shape = dlib::matrix<float, 0, 1>;
using Forests = std::vector<std::vector<dlib::impl::regression_tree>>;
using Anchors = std::vector<std::vector<unsigned long>>;
using Deltas = std::vector<std::vector<dlib::vector<float, 2>>>;

// ---------------------------------------------------------------------------------------------------------
// Access to shape_predictor's private members, which the compact model is made from. dlib offers no accessor,
// and the friends that can reach them (serialize/deserialize) use the slow portable format the cache exists
// to avoid. This is the explicit-instantiation idiom: the standard exempts the names used in an explicit
// instantiation from access checking ([temp.explicit] in C++17), so instantiating Steal with a pointer to a
// private member is valid, and the friend function it defines hands that pointer out. Used only to read a
// predictor dlib has just parsed.
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

// std::allocator, except that a block of 8 MB or more gets pages that may be huge (huge_pages.h): the model's
// leaves (33 MB) then take a few dozen page faults as they are read instead of about 8,000.
template <typename T> struct HugePageAllocator {
    using value_type = T;
    HugePageAllocator() = default;
    template <typename U> HugePageAllocator(const HugePageAllocator<U> &) {}
    static bool mapped(size_t n) { return n * sizeof(T) >= FC_HUGE_PAGES_MIN; }
    T *allocate(size_t n) {
        if (!mapped(n)) return std::allocator<T>().allocate(n);
        void *start = fc_map_huge_pages(n * sizeof(T));
        if (!start) throw std::bad_alloc();
        return static_cast<T *>(start);
    }
    void deallocate(T *p, size_t n) {
        if (mapped(n)) fc_unmap_huge_pages(p, n * sizeof(T));
        else std::allocator<T>().deallocate(p, n);
    }
    template <typename U> bool operator==(const HugePageAllocator<U> &) const { return true; }
    template <typename U> bool operator!=(const HugePageAllocator<U> &) const { return false; }
};

// The model as clm_fit walks it: dlib's cascades of regression trees, with each split in 8 bytes and each leaf's
// values as 16-bit integers times a scale of the leaf's own. Half of dlib's floats (33 MB instead of 65 MB for the
// 68-point model); each value within 1/65534 of its leaf's largest, which moves a point by a few thousandths of
// a pixel.
struct CompactSplit {
    uint16_t idx1, idx2;
    float thresh;
};
struct CompactModel {
    Shape initial;
    Anchors anchors;
    Deltas deltas;
    std::vector<uint32_t> cascade_trees; // cascade c's trees: cascade_trees[c] ..< cascade_trees[c + 1]
    std::vector<uint32_t> tree_splits;   // tree t's splits: tree_splits[t] ..< tree_splits[t + 1]; its leaves from
                                         // tree_splits[t] + t on (a tree has one leaf more than splits)
    std::vector<CompactSplit> splits;
    std::vector<int16_t, HugePageAllocator<int16_t>> leaves; // leaf l's values from l * initial.size() on
    std::vector<float> scales;   // per leaf

    void begin_cascade() { cascade_trees.push_back(trees()); }
    void add_split(uint32_t idx1, uint32_t idx2, float thresh) { splits.push_back({uint16_t(idx1), uint16_t(idx2), thresh}); }
    void end_tree() { tree_splits.push_back(uint32_t(splits.size())); }
    void add_leaf(const float *values) {
        const size_t length = size_t(initial.size());
        float largest = 0;
        for (size_t k = 0; k < length; k++) largest = std::max(largest, std::abs(values[k]));
        const float scale = largest / 32767.f;
        scales.push_back(scale);
        for (size_t k = 0; k < length; k++) leaves.push_back(int16_t(scale > 0 ? std::lround(values[k] / scale) : 0));
    }
    void finish() { cascade_trees.push_back(trees()); }
    uint32_t trees() {
        if (tree_splits.empty()) tree_splits.push_back(0);
        return uint32_t(tree_splits.size() - 1);
    }
};

struct CLMPredictor {
    CompactModel model;
    bool from_cache = false;
    std::string written_cache; // empty unless this load wrote the cache
    std::string model_path;
    // dlib's own predictor, parsed on the first clm_fit_reference (tests only).
    std::once_flag reference_once;
    std::unique_ptr<dlib::shape_predictor> reference;
};

namespace {

using facecrop::guarded;
using facecrop::set_error;

// ---------------------------------------------------------------------------------------------------------
// The raw cache: the compact model (CompactModel below). Native byte order, one file per model name in the
// cache folder, keyed by the model's size and modification time in its header:
//   magic "FCLMRAW1", u32 0x01020304 (byte order), u32 format version, u64 model size, i64 mtime s, i64 mtime ns,
//   u64 shape length (2 x parts), f32 initial shape[shape length], u64 cascades, then per cascade:
//     u64 feature pixels, u32 anchor[pixels], f32 delta (x, y)[pixels], u64 trees, then per tree:
//       u64 splits, (u32 idx1, u32 idx2, f32 threshold)[splits], then per leaf (splits + 1 of them):
//         f32 scale, i16 values[shape length]
//   and the magic again at the end. Format 1 held dlib's float leaves; a cache of another format is replaced.
// Every count is checked against the bytes left and against dlib's requirements before it is used, so a
// damaged or truncated cache is rejected (and replaced), never trusted.
constexpr char kMagic[8] = {'F', 'C', 'L', 'M', 'R', 'A', 'W', '1'};
constexpr uint32_t kByteOrder = 0x01020304, kVersion = 2;

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
        : data(fd < 0 ? MAP_FAILED : mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0)), size(size) {
        if (data != MAP_FAILED) madvise(data, size, MADV_SEQUENTIAL);
    }
    ~Mapping() {
        if (data != MAP_FAILED) munmap(data, size);
    }
    Mapping(const Mapping &) = delete;
    Mapping &operator=(const Mapping &) = delete;
};

// Reads from the cache file mapped into memory (one pass, no per-value system calls). The pages read are given
// back every few megabytes, so the file's pages and the model copied out of them are not resident together (about
// 35 MB each).
struct Reader {
    const char *next;
    uint64_t left; // bytes not yet read
    const char *kept; // the first page not yet given back
    bool bytes(void *p, size_t n) {
        if (n > left) return false;
        if (n > 0) std::memcpy(p, next, n);
        next += n;
        left -= n;
        if (size_t(next - kept) >= kRelease) {
            const size_t page = size_t(sysconf(_SC_PAGESIZE)), done = size_t(next - kept) / page * page;
            madvise(const_cast<char *>(kept), done, MADV_DONTNEED);
            kept += done;
        }
        return true;
    }
    static constexpr size_t kRelease = 4 << 20;
    template <typename T> bool value(T &v) { return bytes(&v, sizeof v); }
    // A count of items of `item_size` bytes each, no more than what is left in the file.
    bool count(uint64_t &n, uint64_t item_size) { return value(n) && (item_size == 0 || n <= left / item_size); }
};

bool write_cache(const CompactModel &m, const ModelKey &key, const std::string &path) {
    const uint64_t length = uint64_t(m.initial.size());
    static std::atomic<unsigned> counter{0};
    const std::string temp = path + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
    // A new file of our own: not through a link, nor over a file someone left under that name.
    const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    FILE *file = fdopen(fd, "wb");
    if (!file) {
        close(fd);
        std::remove(temp.c_str());
        return false;
    }
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
    w.bytes(&m.initial(0), length * sizeof(float));
    const size_t cascades = m.cascade_trees.size() - 1;
    w.value(uint64_t(cascades));
    for (size_t c = 0; c < cascades && w.ok; c++) {
        w.value(uint64_t(m.anchors[c].size()));
        for (unsigned long a : m.anchors[c]) w.value(uint32_t(a));
        for (const auto &d : m.deltas[c]) {
            w.value(d.x());
            w.value(d.y());
        }
        w.value(uint64_t(m.cascade_trees[c + 1] - m.cascade_trees[c]));
        for (uint32_t t = m.cascade_trees[c]; t < m.cascade_trees[c + 1]; t++) {
            const uint32_t first = m.tree_splits[t], count = m.tree_splits[t + 1] - first;
            w.value(uint64_t(count));
            for (uint32_t i = first; i < first + count; i++) {
                w.value(uint32_t(m.splits[i].idx1));
                w.value(uint32_t(m.splits[i].idx2));
                w.value(m.splits[i].thresh);
            }
            for (size_t leaf = size_t(first) + t; leaf <= size_t(first) + t + count; leaf++) {
                w.value(m.scales[leaf]);
                w.bytes(&m.leaves[leaf * length], length * sizeof(int16_t));
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

// The cache read straight into the compact model (dlib's own structures would take twice its memory).
bool read_cache(const std::string &path, const ModelKey &key, CompactModel &model) {
    // Only a regular file of our own making: a FIFO left under the name would block the open (hence O_NONBLOCK)
    // and the reads, a link could point anywhere.
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    if (fd < 0) return false;
    struct stat st;
    const bool sized = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
    const Mapping mapping(sized ? fd : -1, sized ? size_t(st.st_size) : 0);
    close(fd);
    if (mapping.data == MAP_FAILED) return false;
    Reader r{static_cast<const char *>(mapping.data), mapping.size, static_cast<const char *>(mapping.data)};

    char magic[8];
    uint32_t order, version;
    ModelKey stored;
    if (!r.bytes(magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof magic) != 0) return false;
    if (!r.value(order) || order != kByteOrder || !r.value(version) || version != kVersion) return false;
    if (!r.value(stored.size) || !r.value(stored.seconds) || !r.value(stored.nanoseconds)) return false;
    if (stored.size != key.size || stored.seconds != key.seconds || stored.nanoseconds != key.nanoseconds) return false;

    uint64_t length, cascades;
    if (!r.count(length, sizeof(float)) || length == 0 || length % 2 != 0) return false;
    CompactModel m;
    m.initial.set_size(long(length), 1);
    if (!r.bytes(&m.initial(0), length * sizeof(float))) return false;
    const uint64_t parts = length / 2;
    if (!r.count(cascades, 16)) return false;
    m.anchors.resize(cascades);
    m.deltas.resize(cascades);
    m.leaves.reserve(mapping.size / sizeof(int16_t)); // an upper bound: no regrowth, untouched pages cost nothing
    for (uint64_t c = 0; c < cascades; c++) {
        m.begin_cascade();
        uint64_t pixels, count;
        if (!r.count(pixels, 12) || pixels > 65536) return false;
        m.anchors[c].resize(pixels);
        m.deltas[c].resize(pixels);
        for (auto &a : m.anchors[c]) {
            uint32_t v;
            if (!r.value(v) || v >= parts) return false;
            a = v;
        }
        for (auto &d : m.deltas[c]) {
            float x, y;
            if (!r.value(x) || !r.value(y)) return false;
            d = dlib::vector<float, 2>(x, y);
        }
        if (!r.count(count, 8)) return false;
        for (uint64_t t = 0; t < count; t++) {
            uint64_t splits;
            if (!r.count(splits, 12 + sizeof(float) + length * sizeof(int16_t))) return false;
            for (uint64_t i = 0; i < splits; i++) {
                uint32_t i1, i2;
                float thresh;
                if (!r.value(i1) || !r.value(i2) || !r.value(thresh) || i1 >= pixels || i2 >= pixels) return false;
                m.add_split(i1, i2, thresh);
            }
            m.end_tree();
            // dlib walks a complete binary tree: leaves = splits + 1, a power of two.
            const uint64_t leaves = splits + 1, leaf_bytes = sizeof(float) + length * sizeof(int16_t);
            if ((leaves & (leaves - 1)) != 0 || leaves > r.left / leaf_bytes) return false;
            for (uint64_t l = 0; l < leaves; l++) {
                float scale;
                if (!r.value(scale) || !std::isfinite(scale) || scale < 0) return false;
                m.scales.push_back(scale);
                m.leaves.resize(m.leaves.size() + length);
                if (!r.bytes(&m.leaves[m.leaves.size() - length], length * sizeof(int16_t))) return false;
            }
        }
    }
    if (!r.bytes(magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof magic) != 0 || r.left != 0) return false;
    m.finish();
    model = std::move(m);
    return true;
}

// dlib's parsed predictor in the compact form; false for one clm_fit cannot walk (over 65536 feature pixels).
bool compact(const dlib::shape_predictor &p, CompactModel &m) {
    m.initial = initial_shape(p);
    m.anchors = anchors(p);
    m.deltas = deltas(p);
    const Forests &trees = forests(p);
    if (trees.size() != m.anchors.size() || m.anchors.size() != m.deltas.size()) return false;
    size_t leaves = 0;
    for (const auto &cascade : trees)
        for (const auto &tree : cascade) leaves += tree.leaf_values.size();
    m.leaves.reserve(leaves * size_t(m.initial.size()));
    m.scales.reserve(leaves);
    for (size_t c = 0; c < trees.size(); c++) {
        m.begin_cascade();
        if (m.anchors[c].size() > 65536) return false;
        for (const dlib::impl::regression_tree &tree : trees[c]) {
            for (const auto &split : tree.splits) m.add_split(uint32_t(split.idx1), uint32_t(split.idx2), split.thresh);
            m.end_tree();
            if (tree.leaf_values.size() != tree.splits.size() + 1) return false;
            for (const Shape &leaf : tree.leaf_values) {
                if (leaf.size() != m.initial.size()) return false;
                m.add_leaf(&leaf(0));
            }
        }
    }
    m.finish();
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
        if (!model_key(model_path, key)) return set_error(error, error_size, facecrop::unreadable()), -1;
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
            auto parsed = std::make_unique<dlib::shape_predictor>();
            try {
                dlib::deserialize(model_path) >> *parsed;
            } catch (const dlib::serialization_error &) {
                return set_error(error, error_size, "it is not a dlib shape predictor model"), -1;
            }
            if (parsed->num_parts() == 0) return set_error(error, error_size, "it is not a dlib shape predictor (no parts)"), -1;
            if (!compact(*parsed, predictor->model)) return set_error(error, error_size, "the shape predictor is too large"), -1;
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
        // dlib's parsed model and the cache's mapping are gone: hand their memory back to the system.
        malloc_trim(0);
        predictor->model_path = model_path;
        result = predictor.release();
        return 0;
    });
    return result;
}

extern "C" void clm_free(CLMPredictor *predictor) { delete predictor; }

extern "C" int clm_parts(const CLMPredictor *predictor) { return predictor ? int(predictor->model.initial.size() / 2) : 0; }

extern "C" int clm_loaded_from_cache(const CLMPredictor *predictor) { return predictor && predictor->from_cache; }

extern "C" const char *clm_written_cache(const CLMPredictor *predictor) {
    return predictor && !predictor->written_cache.empty() ? predictor->written_cache.c_str() : nullptr;
}

// shape_predictor::operator() (dlib/image_processing/shape_predictor.h) step by step over the compact model,
// through the same public dlib functions, keeping the final points in sub-pixel precision instead of rounding
// them to dlib::point.
extern "C" int clm_fit(const CLMPredictor *predictor, const uint8_t *rgb, int width, int height, float box_x,
                       float box_y, float box_w, float box_h, float *xy_out, char *error, size_t error_size) {
    if (check_fit_arguments(predictor, rgb, width, height, box_x, box_y, box_w, box_h, xy_out, error, error_size) != 0) return -1;
    return guarded(error, error_size, [&] {
        using namespace dlib::impl;
        const CompactModel &m = predictor->model;
        const clm::RGBView image{rgb, height, width};
        const dlib::rectangle rect = face_rect(box_x, box_y, box_w, box_h);
        const long length = m.initial.size();
        Shape current = m.initial;
        std::vector<float> pixels;
        for (size_t c = 0; c + 1 < m.cascade_trees.size(); c++) {
            extract_feature_pixel_values(image, rect, current, m.initial, m.anchors[c], m.deltas[c], pixels);
            for (uint32_t t = m.cascade_trees[c]; t < m.cascade_trees[c + 1]; t++) {
                // dlib's regression_tree::operator(): left child 2i + 1 when the pixel difference is over the
                // threshold, right child 2i + 2, until past the splits.
                const uint32_t first = m.tree_splits[t], count = m.tree_splits[t + 1] - first;
                uint32_t i = 0;
                while (i < count) {
                    const CompactSplit &split = m.splits[first + i];
                    i = pixels[split.idx1] - pixels[split.idx2] > split.thresh ? 2 * i + 1 : 2 * i + 2;
                }
                const size_t leaf = size_t(first) + t + (i - count);
                const int16_t *values = &m.leaves[leaf * size_t(length)];
                const float scale = m.scales[leaf];
                float *out = &current(0);
                for (long k = 0; k < length; k++) out[k] += float(values[k]) * scale;
            }
        }
        const dlib::point_transform_affine to_image = unnormalizing_tform(rect);
        for (long i = 0; i < length / 2; ++i) {
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
        CLMPredictor &p = const_cast<CLMPredictor &>(*predictor);
        std::call_once(p.reference_once, [&] {
            auto parsed = std::make_unique<dlib::shape_predictor>();
            dlib::deserialize(p.model_path) >> *parsed;
            p.reference = std::move(parsed);
        });
        if (!p.reference) throw std::runtime_error("dlib's predictor could not be parsed");
        const clm::RGBView image{rgb, height, width};
        const dlib::full_object_detection shape = (*p.reference)(image, face_rect(box_x, box_y, box_w, box_h));
        for (unsigned long i = 0; i < shape.num_parts(); ++i) {
            xy_out[2 * i] = float(shape.part(i).x());
            xy_out[2 * i + 1] = float(shape.part(i).y());
        }
        return 0;
    });
}
