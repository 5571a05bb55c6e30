// OpenCV face detection behind a C header: CenterFace and YuNet (cv::dnn, outputs decoded by hand: OpenCV 4.6 has
// no CenterFace class, and its cv::FaceDetectorYN only runs the 2022 YuNet model) and Haar cascades. Quality
// measures are in Quality.cpp, frame registration in Registration.cpp, drawing in Drawing.cpp. try/catch at
// every entry.
#include "COpenCV.h"

#include <opencv2/core.hpp>
#include <opencv2/core/utils/logger.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <malloc.h>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>
#include "guarded.hpp"
#include "opencv_log.hpp"

extern "C" const unsigned char ocv_yunet_model[];
extern "C" const size_t ocv_yunet_model_length;
extern "C" const unsigned char ocv_centerface_model[];
extern "C" const size_t ocv_centerface_model_length;

struct OCVDetector {
    enum Kind { centerface, yunet, haar } kind;
    cv::dnn::Net net;
    cv::CascadeClassifier cascade;
    // CenterFace: OpenCV 4.6's importer keeps some layer shapes of the first input a net runs on, and a net
    // run again at another size returns garbage. So the model's bytes are kept, and the net is read anew from
    // them whenever the input size changes (a few tens of milliseconds; images of one size share a net).
    // With keep_spare, the net of the size before is kept too (spare), for inputs that alternate between two
    // sizes, such as a batch of landscape and portrait photos.
    std::vector<char> model_file;
    const char *model = nullptr;
    size_t model_size = 0;
    cv::Size net_size;
    bool keep_spare = false;
    cv::dnn::Net spare;
    cv::Size spare_size;
};

namespace {

using facecrop::guarded;
using facecrop::set_error;
using facecrop::unreadable;
using facecrop::quiet_opencv;

// CenterFace's net, read from the model's bytes. The net holds its own copy of the weights: a model built into
// the binary gives its 7 MB of pages back once read (they come back from the file if the net is read again).
cv::dnn::Net read_centerface(const OCVDetector &d) {
    cv::dnn::Net net = cv::dnn::readNetFromONNX(d.model, d.model_size);
    if (d.model == reinterpret_cast<const char *>(ocv_centerface_model)) {
        const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
        const uintptr_t start = (uintptr_t(d.model) + page - 1) / page * page;
        const uintptr_t end = (uintptr_t(d.model) + d.model_size) / page * page;
        if (end > start) madvise(reinterpret_cast<void *>(start), end - start, MADV_DONTNEED);
    }
    return net;
}

// A model given with --model must be the detector it is given for: check its outputs by name.
void require_outputs(const cv::dnn::Net &net, const std::vector<cv::String> &names, const char *model) {
    const std::vector<cv::String> outputs = net.getUnconnectedOutLayersNames();
    for (const cv::String &name : names)
        if (std::find(outputs.begin(), outputs.end(), name) == outputs.end())
            throw std::runtime_error(std::string("it is not a ") + model + " model (it has no output '" + name + "')");
}

// `read()` on a model file given with --model: OpenCV's words for a file it cannot parse (its source file and
// line) become what is wrong with the file.
template <typename Read> auto reading_model_file(const char *what, Read read) {
    try {
        return read();
    } catch (const cv::Exception &) {
        throw std::runtime_error(std::string("it is not ") + what + " OpenCV can read");
    }
}

const std::vector<cv::String> yunet_outputs = {"cls_8", "cls_16", "cls_32", "obj_8", "obj_16", "obj_32",
                                               "bbox_8", "bbox_16", "bbox_32", "kps_8", "kps_16", "kps_32"};
const std::vector<cv::String> centerface_outputs = {"537", "538", "539", "540"};

// YuNet's raw outputs: per stride 8/16/32 one anchor per grid cell.
cv::Size padded_size(int width, int height) { return cv::Size((width + 31) / 32 * 32, (height + 31) / 32 * 32); }

// Non-maximum suppression (IoU 0.3) of the candidate faces above `threshold`: the ones kept, best first.
std::vector<OCVFace> suppress_overlaps(const std::vector<OCVFace> &candidates, float threshold) {
    std::vector<cv::Rect2d> boxes;
    std::vector<float> scores;
    for (const OCVFace &face : candidates) {
        boxes.emplace_back(face.x, face.y, face.width, face.height);
        scores.push_back(face.score);
    }
    std::vector<int> keep;
    cv::dnn::NMSBoxes(boxes, scores, threshold, 0.3f, keep, 1.f, 5000);
    std::vector<OCVFace> faces;
    for (int k : keep) faces.push_back(candidates[k]);
    return faces;
}

// A face with landmarks (filled in by the caller), from its box's centre and size.
OCVFace centred_face(float cx, float cy, float width, float height, float score) {
    OCVFace face{};
    face.x = cx - width / 2;
    face.y = cy - height / 2;
    face.width = width;
    face.height = height;
    face.score = score;
    face.has_landmarks = 1;
    return face;
}

std::vector<OCVFace> yunet_detect(OCVDetector &d, const cv::Mat &bgr, float threshold) {
    cv::dnn::Net &net = d.net;
    const cv::Size pad = padded_size(bgr.cols, bgr.rows);
    const int padW = pad.width, padH = pad.height;
    cv::Mat padded;
    cv::copyMakeBorder(bgr, padded, 0, padH - bgr.rows, 0, padW - bgr.cols, cv::BORDER_CONSTANT, cv::Scalar());
    net.setInput(cv::dnn::blobFromImage(padded));
    std::vector<cv::Mat> outputs;
    net.forward(outputs, yunet_outputs);

    std::vector<OCVFace> candidates;
    for (int i = 0; i < 3; i++) {
        const int stride = 8 << i, cols = padW / stride, rows = padH / stride;
        const float *cls = outputs[i].ptr<float>(), *obj = outputs[i + 3].ptr<float>();
        const float *bbox = outputs[i + 6].ptr<float>(), *kps = outputs[i + 9].ptr<float>();
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                const int idx = r * cols + c;
                const float score = std::sqrt(std::clamp(cls[idx], 0.f, 1.f) * std::clamp(obj[idx], 0.f, 1.f));
                if (score < threshold) continue;
                const float cx = (c + bbox[idx * 4 + 0]) * stride, cy = (r + bbox[idx * 4 + 1]) * stride;
                const float w = std::exp(bbox[idx * 4 + 2]) * stride, h = std::exp(bbox[idx * 4 + 3]) * stride;
                OCVFace face = centred_face(cx, cy, w, h, score);
                for (int n = 0; n < 5; n++) {
                    face.landmarks[2 * n] = (kps[idx * 10 + 2 * n] + c) * stride;
                    face.landmarks[2 * n + 1] = (kps[idx * 10 + 2 * n + 1] + r) * stride;
                }
                candidates.push_back(face);
            }
        }
    }
    return suppress_overlaps(candidates, threshold);
}

// CenterFace: one heatmap of face centres at stride 4 with, per cell, the box's log size, the centre's sub-cell
// offset and 5 landmarks relative to the box. The input is padded (bottom/right, zeros) to multiples of 32.
std::vector<OCVFace> centerface_detect(OCVDetector &d, const cv::Mat &rgb, float threshold) {
    // At least 64 each way: with a side of 32 (one cell at stride 32), OpenCV 4.6 runs the built-in split net
    // non-deterministically (now and then dozens of "faces" in a blank strip); the published net does not.
    cv::Size pad = padded_size(rgb.cols, rgb.rows);
    pad = cv::Size(std::max(pad.width, 64), std::max(pad.height, 64));
    if (d.net_size != pad) {
        if (d.keep_spare && d.spare_size == pad) {
            std::swap(d.net, d.spare);
            std::swap(d.net_size, d.spare_size);
        } else {
            if (d.keep_spare && d.net_size.width > 0) {
                d.spare = d.net; // nets share their state when copied: this one stays with the spare
                d.spare_size = d.net_size;
            }
            if (d.net_size != cv::Size()) d.net = read_centerface(d);
            d.net_size = pad;
        }
    }
    cv::Mat padded;
    cv::copyMakeBorder(rgb, padded, 0, pad.height - rgb.rows, 0, pad.width - rgb.cols, cv::BORDER_CONSTANT, cv::Scalar());
    d.net.setInput(cv::dnn::blobFromImage(padded));  // RGB as given, float, no scaling or mean
    std::vector<cv::Mat> outputs;
    d.net.forward(outputs, centerface_outputs);
    const cv::Mat &heat = outputs[0], &scale = outputs[1], &offset = outputs[2], &marks = outputs[3];
    if (heat.dims != 4 || scale.dims != 4 || offset.dims != 4 || marks.dims != 4 || scale.size[1] != 2 ||
        offset.size[1] != 2 || marks.size[1] != 10)
        throw std::runtime_error("the CenterFace model's outputs do not have the expected shapes");
    const int rows = heat.size[2], cols = heat.size[3], plane = rows * cols;
    for (const cv::Mat *m : {&scale, &offset, &marks})
        if (m->size[2] != rows || m->size[3] != cols) throw std::runtime_error("the CenterFace model's outputs differ in size");
    const float *h = heat.ptr<float>(), *s = scale.ptr<float>(), *o = offset.ptr<float>(), *l = marks.ptr<float>();
    std::vector<OCVFace> candidates;
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            const int i = r * cols + c;
            const float score = h[i];
            if (!(score >= threshold)) continue;
            const float height = std::exp(s[i]) * 4, width = std::exp(s[plane + i]) * 4;
            const float cx = (c + o[plane + i] + 0.5f) * 4, cy = (r + o[i] + 0.5f) * 4;
            OCVFace face = centred_face(cx, cy, width, height, score);
            // Channels hold (y, x) pairs in units of the box's height and width.
            for (int n = 0; n < 5; n++) {
                face.landmarks[2 * n] = face.x + l[(2 * n + 1) * plane + i] * width;
                face.landmarks[2 * n + 1] = face.y + l[2 * n * plane + i] * height;
            }
            candidates.push_back(face);
        }
    }
    return suppress_overlaps(candidates, threshold);
}

std::vector<OCVFace> haar_detect(cv::CascadeClassifier &cascade, const cv::Mat &bgr, float threshold) {
    cv::Mat grey;
    cv::cvtColor(bgr, grey, cv::COLOR_BGR2GRAY);
    cv::equalizeHist(grey, grey);
    std::vector<cv::Rect> rects;
    std::vector<int> levels;
    std::vector<double> weights;
    const int minSide = std::max(20, std::min(bgr.cols, bgr.rows) / 25);
    cascade.detectMultiScale(grey, rects, levels, weights, 1.1, 4, 0, cv::Size(minSide, minSide), cv::Size(), true);
    std::vector<OCVFace> faces;
    for (size_t i = 0; i < rects.size(); i++) {
        // The last stage's weight, squashed into 0...1 so it reads like YuNet's score.
        const float score = 1.f / (1.f + std::exp(-static_cast<float>(weights[i])));
        if (score < threshold) continue;
        OCVFace face{};
        face.x = rects[i].x;
        face.y = rects[i].y;
        face.width = rects[i].width;
        face.height = rects[i].height;
        face.score = score;
        faces.push_back(face);
    }
    return faces;
}

// A new detector of `kind`, set up by `setup` (which throws on failure), or nullptr with the message in `error`.
template <typename Setup> OCVDetector *create(OCVDetector::Kind kind, char *error, size_t error_size, Setup setup) {
    OCVDetector *result = nullptr;
    guarded(error, error_size, [&] {
        quiet_opencv();
        auto detector = std::make_unique<OCVDetector>();
        detector->kind = kind;
        setup(*detector);
        result = detector.release();
        return 0;
    });
    return result;
}

} // namespace

extern "C" OCVDetector *ocv_yunet_create(const char *model_path, char *error, size_t error_size) {
    return create(OCVDetector::yunet, error, error_size, [&](OCVDetector &detector) {
        if (model_path && *model_path) {
            detector.net = reading_model_file("an ONNX model", [&] { return cv::dnn::readNetFromONNX(model_path); });
        } else {
            if (ocv_yunet_model_length == 0) throw std::runtime_error("no YuNet model was built into facecrop");
            detector.net =
                cv::dnn::readNetFromONNX(reinterpret_cast<const char *>(ocv_yunet_model), ocv_yunet_model_length);
        }
        if (detector.net.empty()) throw std::runtime_error("the YuNet model could not be read");
        require_outputs(detector.net, yunet_outputs, "YuNet");
    });
}

extern "C" OCVDetector *ocv_centerface_create(const char *model_path, int read_on_first_use, size_t max_bytes, char *error,
                                              size_t error_size) {
    return create(OCVDetector::centerface, error, error_size, [&](OCVDetector &detector) {
        if (model_path && *model_path) {
            std::ifstream file(model_path, std::ios::binary);
            if (!file) throw std::runtime_error(unreadable());
            // At most max_bytes: a file that grew since it was checked is refused, not read without end.
            std::vector<char> chunk(1 << 20);
            while (file.read(chunk.data(), std::streamsize(chunk.size())) || file.gcount() > 0) {
                detector.model_file.insert(detector.model_file.end(), chunk.data(), chunk.data() + file.gcount());
                if (detector.model_file.size() > max_bytes)
                    throw std::runtime_error("it grew over " + std::to_string(max_bytes) + " bytes while it was read");
            }
            detector.model = detector.model_file.data();
            detector.model_size = detector.model_file.size();
        } else {
            if (ocv_centerface_model_length == 0) throw std::runtime_error("no CenterFace model was built into facecrop");
            detector.model = reinterpret_cast<const char *>(ocv_centerface_model);
            detector.model_size = ocv_centerface_model_length;
            if (read_on_first_use) {
                detector.net_size = cv::Size(-1, -1); // no input size: centerface_detect reads the net
                return;
            }
        }
        detector.net = model_path && *model_path ? reading_model_file("an ONNX model", [&] { return read_centerface(detector); })
                                                 : read_centerface(detector);
        if (detector.net.empty()) throw std::runtime_error("the CenterFace model could not be read");
        require_outputs(detector.net, centerface_outputs, "CenterFace");
    });
}

// The deepest nesting in a cascade file, of XML elements and of JSON or YAML brackets (not string-aware: a
// cascade's text holds none). OpenCV's FileStorage parses nesting by recursion, so a file of tens of thousands
// of levels (a few hundred kB) overflows the stack; real cascades nest a handful deep.
static size_t nesting_depth(const char *path) {
    std::FILE *f = std::fopen(path, "rb");
    if (!f) return 0;
    size_t depth = 0, deepest = 0;
    int previous = 0, c;
    while ((c = std::fgetc(f)) != EOF) {
        if (previous == '<') {
            if (c == '/') depth = depth > 0 ? depth - 1 : 0;
            else if (c != '?' && c != '!') depth++;
        } else if (c == '>' && previous == '/') {
            depth = depth > 0 ? depth - 1 : 0;  // <empty/>
        } else if (c == '[' || c == '{') {
            depth++;
        } else if (c == ']' || c == '}') {
            depth = depth > 0 ? depth - 1 : 0;
        }
        deepest = std::max(deepest, depth);
        previous = c;
    }
    std::fclose(f);
    return deepest;
}

extern "C" OCVDetector *ocv_haar_create(const char *cascade_path, char *error, size_t error_size) {
    return create(OCVDetector::haar, error, error_size, [&](OCVDetector &detector) {
        if (access(cascade_path, R_OK) != 0) throw std::runtime_error(unreadable());
        if (nesting_depth(cascade_path) > 256)
            throw std::runtime_error("it is not a Haar cascade OpenCV can read (it nests deeper than any cascade does)");
        if (!reading_model_file("a Haar cascade", [&] { return detector.cascade.load(cascade_path); }))
            throw std::runtime_error("it is not a Haar cascade OpenCV can read");
    });
}

extern "C" void ocv_free(OCVDetector *detector) { delete detector; }

extern "C" void ocv_keep_spare_net(OCVDetector *detector, int keep) {
    if (!detector || detector->kind != OCVDetector::centerface) return;
    detector->keep_spare = keep != 0;
    if (!detector->keep_spare) {
        detector->spare = cv::dnn::Net();
        detector->spare_size = cv::Size();
    }
}

extern "C" void ocv_release_working_memory(OCVDetector *detector) {
    if (!detector || detector->kind != OCVDetector::centerface) return;
    try {
        detector->net = cv::dnn::Net();
        detector->net_size = cv::Size(-1, -1); // no input size: centerface_detect reads the net again
        detector->spare = cv::dnn::Net();
        detector->spare_size = cv::Size();
    } catch (...) {
        return;
    }
    malloc_trim(0);
}

extern "C" int ocv_detect(OCVDetector *detector, const uint8_t *rgb, int width, int height, int max_side,
                          float score_threshold, OCVFace *faces, int capacity, int *count, char *error, size_t error_size) {
    *count = 0;
    return guarded(error, error_size, [&] {
        if (!detector || !rgb || width <= 0 || height <= 0 || max_side < 0) throw std::invalid_argument("invalid detector input");
        cv::Mat view(height, width, CV_8UC3, const_cast<uint8_t *>(rgb));
        // Over max_side: detected on a copy scaled down by area, boxes and points scaled back.
        double scale = 1;
        if (max_side > 0 && std::max(width, height) > max_side) {
            scale = double(max_side) / std::max(width, height);
            cv::Mat small;
            cv::resize(view, small, cv::Size(std::max(1, int(std::lround(width * scale))), std::max(1, int(std::lround(height * scale)))), 0, 0,
                       cv::INTER_AREA);
            view = small;
        }
        std::vector<OCVFace> found;
        if (detector->kind == OCVDetector::centerface) {
            found = centerface_detect(*detector, view, score_threshold);
        } else {
            cv::Mat bgr;
            cv::cvtColor(view, bgr, cv::COLOR_RGB2BGR);
            found = detector->kind == OCVDetector::yunet ? yunet_detect(*detector, bgr, score_threshold)
                                                         : haar_detect(detector->cascade, bgr, score_threshold);
        }
        if (scale != 1) {
            const float back_x = float(width) / view.cols, back_y = float(height) / view.rows;
            for (OCVFace &f : found) {
                f.x *= back_x, f.width *= back_x, f.y *= back_y, f.height *= back_y;
                for (int i = 0; i < 5; i++) f.landmarks[2 * i] *= back_x, f.landmarks[2 * i + 1] *= back_y;
            }
        }
        // Best first; ties by position, so the order never depends on the sort's stability.
        std::sort(found.begin(), found.end(), [](const OCVFace &a, const OCVFace &b) {
            if (a.score != b.score) return a.score > b.score;
            return a.y != b.y ? a.y < b.y : a.x < b.x;
        });
        const int n = std::min<int>(capacity, static_cast<int>(found.size()));
        std::copy(found.begin(), found.begin() + n, faces);
        *count = n;
        return 0;
    });
}
