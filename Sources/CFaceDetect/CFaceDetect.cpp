// OpenCV face detection behind a C header: CenterFace and YuNet (cv::dnn, outputs decoded by hand: OpenCV 4.6 has
// no CenterFace class, and its cv::FaceDetectorYN only runs the 2022 YuNet model) and Haar cascades. try/catch at
// every entry.
#include "CFaceDetect.h"

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
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>
#include "guarded.hpp"

extern "C" const unsigned char cfd_yunet_model[];
extern "C" const size_t cfd_yunet_model_length;
extern "C" const unsigned char cfd_centerface_model[];
extern "C" const size_t cfd_centerface_model_length;
extern "C" const unsigned char cfd_fer_model[];
extern "C" const size_t cfd_fer_model_length;

struct CFDExpression {
    cv::dnn::Net net;
};

struct CFDDetector {
    enum Kind { centerface, yunet, haar } kind;
    cv::dnn::Net net;
    cv::CascadeClassifier cascade;
    // CenterFace: OpenCV 4.6's importer keeps some layer shapes of the first input a net runs on, and a net
    // run again at another size returns garbage. So the model's bytes are kept, and the net is read anew from
    // them whenever the input size changes (a few tens of milliseconds; images of one size share a net).
    std::vector<char> model_file;
    const char *model = nullptr;
    size_t model_size = 0;
    cv::Size net_size;
};

namespace {

using facecrop::guarded;
using facecrop::set_error;

void quiet_opencv() {
    static bool done = false;
    if (!done) {
        cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_ERROR);
        done = true;
    }
}

// A model given with --model must be the detector it is given for: check its outputs by name.
void require_outputs(const cv::dnn::Net &net, const std::vector<cv::String> &names, const char *model) {
    const std::vector<cv::String> outputs = net.getUnconnectedOutLayersNames();
    for (const cv::String &name : names)
        if (std::find(outputs.begin(), outputs.end(), name) == outputs.end())
            throw std::runtime_error(std::string("the model is not a ") + model + " model (it has no output '" + name + "')");
}

const std::vector<cv::String> yunet_outputs = {"cls_8", "cls_16", "cls_32", "obj_8", "obj_16", "obj_32",
                                               "bbox_8", "bbox_16", "bbox_32", "kps_8", "kps_16", "kps_32"};
const std::vector<cv::String> centerface_outputs = {"537", "538", "539", "540"};

// YuNet's raw outputs: per stride 8/16/32 one anchor per grid cell.
cv::Size padded_size(int width, int height) { return cv::Size((width + 31) / 32 * 32, (height + 31) / 32 * 32); }

std::vector<CFDFace> yunet_detect(CFDDetector &d, const cv::Mat &bgr, float threshold) {
    cv::dnn::Net &net = d.net;
    const cv::Size pad = padded_size(bgr.cols, bgr.rows);
    const int padW = pad.width, padH = pad.height;
    cv::Mat padded;
    cv::copyMakeBorder(bgr, padded, 0, padH - bgr.rows, 0, padW - bgr.cols, cv::BORDER_CONSTANT, cv::Scalar());
    net.setInput(cv::dnn::blobFromImage(padded));
    std::vector<cv::Mat> outputs;
    net.forward(outputs, yunet_outputs);

    std::vector<CFDFace> candidates;
    std::vector<cv::Rect2d> boxes;
    std::vector<float> scores;
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
                CFDFace face{};
                face.x = cx - w / 2;
                face.y = cy - h / 2;
                face.width = w;
                face.height = h;
                face.score = score;
                face.has_landmarks = 1;
                for (int n = 0; n < 5; n++) {
                    face.landmarks[2 * n] = (kps[idx * 10 + 2 * n] + c) * stride;
                    face.landmarks[2 * n + 1] = (kps[idx * 10 + 2 * n + 1] + r) * stride;
                }
                candidates.push_back(face);
                boxes.emplace_back(face.x, face.y, w, h);
                scores.push_back(score);
            }
        }
    }
    std::vector<int> keep;
    cv::dnn::NMSBoxes(boxes, scores, threshold, 0.3f, keep, 1.f, 5000);
    std::vector<CFDFace> faces;
    for (int k : keep) faces.push_back(candidates[k]);
    return faces;
}

// CenterFace: one heatmap of face centres at stride 4 with, per cell, the box's log size, the centre's sub-cell
// offset and 5 landmarks relative to the box. The input is padded (bottom/right, zeros) to multiples of 32.
std::vector<CFDFace> centerface_detect(CFDDetector &d, const cv::Mat &rgb, float threshold) {
    const cv::Size pad = padded_size(rgb.cols, rgb.rows);
    if (d.net_size != pad) {
        if (d.net_size != cv::Size()) d.net = cv::dnn::readNetFromONNX(d.model, d.model_size);
        d.net_size = pad;
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
    std::vector<CFDFace> candidates;
    std::vector<cv::Rect2d> boxes;
    std::vector<float> scores;
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            const int i = r * cols + c;
            const float score = h[i];
            if (!(score >= threshold)) continue;
            const float height = std::exp(s[i]) * 4, width = std::exp(s[plane + i]) * 4;
            const float cx = (c + o[plane + i] + 0.5f) * 4, cy = (r + o[i] + 0.5f) * 4;
            CFDFace face{};
            face.x = cx - width / 2;
            face.y = cy - height / 2;
            face.width = width;
            face.height = height;
            face.score = score;
            face.has_landmarks = 1;
            // Channels hold (y, x) pairs in units of the box's height and width.
            for (int n = 0; n < 5; n++) {
                face.landmarks[2 * n] = face.x + l[(2 * n + 1) * plane + i] * width;
                face.landmarks[2 * n + 1] = face.y + l[2 * n * plane + i] * height;
            }
            candidates.push_back(face);
            boxes.emplace_back(face.x, face.y, width, height);
            scores.push_back(score);
        }
    }
    std::vector<int> keep;
    cv::dnn::NMSBoxes(boxes, scores, threshold, 0.3f, keep, 1.f, 5000);
    std::vector<CFDFace> faces;
    for (int k : keep) faces.push_back(candidates[k]);
    return faces;
}

std::vector<CFDFace> haar_detect(cv::CascadeClassifier &cascade, const cv::Mat &bgr, float threshold) {
    cv::Mat grey;
    cv::cvtColor(bgr, grey, cv::COLOR_BGR2GRAY);
    cv::equalizeHist(grey, grey);
    std::vector<cv::Rect> rects;
    std::vector<int> levels;
    std::vector<double> weights;
    const int minSide = std::max(20, std::min(bgr.cols, bgr.rows) / 25);
    cascade.detectMultiScale(grey, rects, levels, weights, 1.1, 4, 0, cv::Size(minSide, minSide), cv::Size(), true);
    std::vector<CFDFace> faces;
    for (size_t i = 0; i < rects.size(); i++) {
        // The last stage's weight, squashed into 0...1 so it reads like YuNet's score.
        const float score = 1.f / (1.f + std::exp(-static_cast<float>(weights[i])));
        if (score < threshold) continue;
        CFDFace face{};
        face.x = rects[i].x;
        face.y = rects[i].y;
        face.width = rects[i].width;
        face.height = rects[i].height;
        face.score = score;
        faces.push_back(face);
    }
    return faces;
}

} // namespace

extern "C" CFDDetector *cfd_yunet_create(const char *model_path, char *error, size_t error_size) {
    CFDDetector *result = nullptr;
    guarded(error, error_size, [&] {
        quiet_opencv();
        auto detector = std::make_unique<CFDDetector>();
        detector->kind = CFDDetector::yunet;
        if (model_path && *model_path) {
            detector->net = cv::dnn::readNetFromONNX(model_path);
        } else {
            if (cfd_yunet_model_length == 0) throw std::runtime_error("no YuNet model was built into facecrop");
            detector->net = cv::dnn::readNetFromONNX(reinterpret_cast<const char *>(cfd_yunet_model),
                                                     cfd_yunet_model_length);
        }
        if (detector->net.empty()) throw std::runtime_error("the YuNet model could not be read");
        require_outputs(detector->net, yunet_outputs, "YuNet");
        result = detector.release();
        return 0;
    });
    return result;
}

extern "C" CFDDetector *cfd_centerface_create(const char *model_path, char *error, size_t error_size) {
    CFDDetector *result = nullptr;
    guarded(error, error_size, [&] {
        quiet_opencv();
        auto detector = std::make_unique<CFDDetector>();
        detector->kind = CFDDetector::centerface;
        if (model_path && *model_path) {
            std::ifstream file(model_path, std::ios::binary);
            if (!file) throw std::runtime_error(std::string("cannot read the model file '") + model_path + "'");
            detector->model_file.assign(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
            detector->model = detector->model_file.data();
            detector->model_size = detector->model_file.size();
        } else {
            if (cfd_centerface_model_length == 0) throw std::runtime_error("no CenterFace model was built into facecrop");
            detector->model = reinterpret_cast<const char *>(cfd_centerface_model);
            detector->model_size = cfd_centerface_model_length;
        }
        detector->net = cv::dnn::readNetFromONNX(detector->model, detector->model_size);
        if (detector->net.empty()) throw std::runtime_error("the CenterFace model could not be read");
        require_outputs(detector->net, centerface_outputs, "CenterFace");
        result = detector.release();
        return 0;
    });
    return result;
}

extern "C" CFDDetector *cfd_haar_create(const char *cascade_path, char *error, size_t error_size) {
    CFDDetector *result = nullptr;
    guarded(error, error_size, [&] {
        quiet_opencv();
        auto detector = std::make_unique<CFDDetector>();
        detector->kind = CFDDetector::haar;
        if (!detector->cascade.load(cascade_path))
            throw std::runtime_error(std::string("cannot load the Haar cascade '") + cascade_path + "'");
        result = detector.release();
        return 0;
    });
    return result;
}

extern "C" void cfd_free(CFDDetector *detector) { delete detector; }

extern "C" CFDExpression *cfd_expression_create(const char *model_path, char *error, size_t error_size) {
    CFDExpression *result = nullptr;
    guarded(error, error_size, [&] {
        quiet_opencv();
        auto model = std::make_unique<CFDExpression>();
        model->net = model_path && *model_path
                         ? cv::dnn::readNetFromONNX(model_path)
                         : cv::dnn::readNetFromONNX(reinterpret_cast<const char *>(cfd_fer_model), cfd_fer_model_length);
        if (model->net.empty()) throw std::runtime_error("the expression model could not be read");
        result = model.release();
        return 0;
    });
    return result;
}

extern "C" void cfd_expression_free(CFDExpression *model) { delete model; }

namespace {

// Crete, Dolmiere, Ladret, Nicolas: "The blur effect: perception and estimation with a new no-reference
// perceptual blur metric" (2007). 0 for a sharp image, growing towards 1 as it blurs. Summed over the face's
// edges only (the 10 % of its pixels with the strongest Sobel gradient, the complement of where the noise is
// measured): on the flat rest, noise reads as detail, so added noise made a face "sharper".
float crete_blur(const cv::Mat &f) {
    cv::Mat bv, bh, gx, gy;
    cv::blur(f, bv, cv::Size(1, 9));
    cv::blur(f, bh, cv::Size(9, 1));
    cv::Sobel(f, gx, CV_32F, 1, 0);
    cv::Sobel(f, gy, CV_32F, 0, 1);
    const cv::Mat gradient = cv::abs(gx) + cv::abs(gy);
    std::vector<float> sorted(gradient.begin<float>(), gradient.end<float>());
    const size_t cut = sorted.size() * 9 / 10;
    std::nth_element(sorted.begin(), sorted.begin() + cut, sorted.end());
    const cv::Mat edges = gradient >= sorted[cut];
    auto direction = [&](const cv::Mat &a, const cv::Mat &b, bool vertical) {
        cv::Mat da, db, mask;
        if (vertical) {
            cv::absdiff(a.rowRange(1, a.rows), a.rowRange(0, a.rows - 1), da);
            cv::absdiff(b.rowRange(1, b.rows), b.rowRange(0, b.rows - 1), db);
            mask = edges.rowRange(1, edges.rows);
        } else {
            cv::absdiff(a.colRange(1, a.cols), a.colRange(0, a.cols - 1), da);
            cv::absdiff(b.colRange(1, b.cols), b.colRange(0, b.cols - 1), db);
            mask = edges.colRange(1, edges.cols);
        }
        cv::Mat v = cv::max(da - db, 0.0);
        const double sf = cv::mean(da, mask)[0], sv = cv::mean(v, mask)[0];  // means over the same pixels
        return sf > 0 ? static_cast<float>((sf - sv) / sf) : 1.f;
    };
    return std::max(direction(f, bv, true), direction(f, bh, false));
}

// Immerkaer, "Fast noise variance estimation" (1996): sigma from a Laplacian-difference mask, in grey levels,
// taken away from edges as Tai and Yang ("A fast method for image noise estimation using Laplacian operator and
// adaptive edge detection", 2008) do: the 10 % of pixels with the strongest Sobel gradient are left out. Without
// that, a sharp face's fine detail (lashes, hair, skin texture) reads as noise, and blurring it "removes noise".
float immerkaer_noise(const cv::Mat &f255) {
    static const float m[9] = {1, -2, 1, -2, 4, -2, 1, -2, 1};
    cv::Mat response, gx, gy, gradient;
    cv::filter2D(f255, response, CV_32F, cv::Mat(3, 3, CV_32F, const_cast<float *>(m)));
    cv::Sobel(f255, gx, CV_32F, 1, 0);
    cv::Sobel(f255, gy, CV_32F, 0, 1);
    gradient = cv::abs(gx) + cv::abs(gy);
    const cv::Rect inner(1, 1, f255.cols - 2, f255.rows - 2);
    const cv::Mat r = cv::abs(response(inner)), g = gradient(inner);
    std::vector<float> sorted(g.begin<float>(), g.end<float>());
    const size_t edge = sorted.size() * 9 / 10;
    std::nth_element(sorted.begin(), sorted.begin() + edge, sorted.end());
    const cv::Mat flat = g < sorted[edge];
    if (cv::countNonZero(flat) == 0) return 0;
    return static_cast<float>(std::sqrt(M_PI / 2) * cv::mean(r, flat)[0] / 6.0);
}

} // namespace

extern "C" int cfd_face_metrics(const uint8_t *rgb, int width, int height, CFDExpression *expression, CFDFaceMetrics *out,
                                char *error, size_t error_size) {
    return guarded(error, error_size, [&] {
        if (!rgb || width < 16 || height < 16) throw std::invalid_argument("face crop too small to measure");
        cv::Mat view(height, width, CV_8UC3, const_cast<uint8_t *>(rgb));
        cv::Mat grey, f, f255;
        cv::cvtColor(view, grey, cv::COLOR_RGB2GRAY);
        grey.convertTo(f255, CV_32F);
        f = f255 / 255.0;
        // The face itself: the central part of the square crop (the crop has a border around the box).
        const cv::Rect inner(width / 8, height / 8, width * 3 / 4, height * 3 / 4);
        const cv::Mat face = f(inner);
        cv::Scalar mean, stddev;
        cv::meanStdDev(face, mean, stddev);
        out->blur = crete_blur(face);
        out->noise = immerkaer_noise(f255(inner));
        out->mean = static_cast<float>(mean[0]);
        out->contrast = static_cast<float>(stddev[0]);
        // Clipped areas, not clipped pixels: on the face smoothed over about 2 % of its height, so a catchlight
        // or a dark lash does not count and a mild blur (which rounds such pixels off) hardly changes the share;
        // and counted on a soft threshold (a pixel counts fully at 0.01 or 0.99, not at all at 0.05 or 0.95), so
        // a region a little under the hard limit does not flip the share when the face moves or softens.
        cv::Mat smooth, dark, bright;
        cv::GaussianBlur(face, smooth, cv::Size(0, 0), 1.5);
        cv::min(cv::max((0.05 - smooth) / 0.04, 0.0), 1.0, dark);
        cv::min(cv::max((smooth - 0.95) / 0.04, 0.0), 1.0, bright);
        out->clipped = static_cast<float>(cv::mean(dark)[0] + cv::mean(bright)[0]);
        const cv::Mat left = face.colRange(0, face.cols / 2), right = face.colRange(face.cols / 2, face.cols);
        out->imbalance = static_cast<float>(std::abs(cv::mean(left)[0] - cv::mean(right)[0]));
        for (float &p : out->expression) p = -1;
        if (expression) {
            // Through 48x48 first, the resolution of FER2013's faces the model learnt from: detail finer than
            // that (which a mild blur removes) never reaches the model, so a slightly soft face reads the same.
            cv::Mat face48, face64;
            cv::resize(grey, face48, cv::Size(48, 48), 0, 0, cv::INTER_AREA);
            cv::resize(face48, face64, cv::Size(64, 64), 0, 0, cv::INTER_LINEAR);
            expression->net.setInput(cv::dnn::blobFromImage(face64, 1 / 127.5, cv::Size(64, 64), cv::Scalar(127.5)));
            cv::Mat probabilities = expression->net.forward();
            for (int i = 0; i < 7 && i < static_cast<int>(probabilities.total()); i++) out->expression[i] = probabilities.ptr<float>()[i];
        }
        return 0;
    });
}

extern "C" int cfd_detect(CFDDetector *detector, const uint8_t *rgb, int width, int height, float score_threshold,
                          CFDFace *faces, int capacity, int *count, char *error, size_t error_size) {
    *count = 0;
    return guarded(error, error_size, [&] {
        if (!detector || !rgb || width <= 0 || height <= 0) throw std::invalid_argument("invalid detector input");
        cv::Mat view(height, width, CV_8UC3, const_cast<uint8_t *>(rgb));
        std::vector<CFDFace> found;
        if (detector->kind == CFDDetector::centerface) {
            found = centerface_detect(*detector, view, score_threshold);
        } else {
            cv::Mat bgr;
            cv::cvtColor(view, bgr, cv::COLOR_RGB2BGR);
            found = detector->kind == CFDDetector::yunet ? yunet_detect(*detector, bgr, score_threshold)
                                                         : haar_detect(detector->cascade, bgr, score_threshold);
        }
        // Best first; ties by position, so the order never depends on the sort's stability.
        std::sort(found.begin(), found.end(), [](const CFDFace &a, const CFDFace &b) {
            if (a.score != b.score) return a.score > b.score;
            return a.y != b.y ? a.y < b.y : a.x < b.x;
        });
        const int n = std::min<int>(capacity, static_cast<int>(found.size()));
        std::copy(found.begin(), found.begin() + n, faces);
        *count = n;
        return 0;
    });
}

extern "C" int cfd_blockiness(const uint8_t *rgb, int width, int height, float *ratio, char *error, size_t error_size) {
    return guarded(error, error_size, [&] {
        if (!rgb || width < 16 || height < 16) throw std::invalid_argument("region too small for blockiness");
        cv::Mat view(height, width, CV_8UC3, const_cast<uint8_t *>(rgb));
        cv::Mat grey;
        cv::cvtColor(view, grey, cv::COLOR_RGB2GRAY);
        grey.convertTo(grey, CV_32F);
        double boundary = 0, inside = 0;
        long nb = 0, ni = 0;
        // Horizontal steps between columns x and x+1, and vertical steps between rows y and y+1.
        for (int y = 0; y < grey.rows; y++) {
            const float *row = grey.ptr<float>(y);
            for (int x = 0; x + 1 < grey.cols; x++) {
                const double d = std::abs(row[x + 1] - row[x]);
                if (x % 8 == 7) { boundary += d; nb++; } else { inside += d; ni++; }
            }
        }
        for (int y = 0; y + 1 < grey.rows; y++) {
            const float *a = grey.ptr<float>(y), *b = grey.ptr<float>(y + 1);
            for (int x = 0; x < grey.cols; x++) {
                const double d = std::abs(b[x] - a[x]);
                if (y % 8 == 7) { boundary += d; nb++; } else { inside += d; ni++; }
            }
        }
        const double mb = nb ? boundary / nb : 0, mi = ni ? inside / ni : 0;
        *ratio = static_cast<float>(mi > 1e-6 ? mb / mi : 1.0);
        return 0;
    });
}

extern "C" int cfd_phase_correlate(const uint8_t *previous, const uint8_t *current, int width, int height, double *dx,
                                   double *dy, double *response, char *error, size_t error_size) {
    return guarded(error, error_size, [&] {
        if (!previous || !current || width < 8 || height < 8) throw std::invalid_argument("frames too small to register");
        auto grey = [&](const uint8_t *pixels) {
            cv::Mat f;
            cv::Mat(height, width, CV_8UC1, const_cast<uint8_t *>(pixels)).convertTo(f, CV_32F);
            return f;
        };
        cv::Mat a = grey(previous), b = grey(current), window;
        cv::createHanningWindow(window, a.size(), CV_32F);
        double peak = 0;
        const cv::Point2d shift = cv::phaseCorrelate(a, b, window, &peak);
        *dx = shift.x;
        *dy = shift.y;
        if (response) *response = peak;
        return 0;
    });
}
