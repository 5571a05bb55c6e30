// OpenCV face detection behind a C header: YuNet (cv::dnn, decoded by hand because OpenCV 4.6's
// cv::FaceDetectorYN only runs the 2022 model) and Haar cascades. try/catch at every entry.
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
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

extern "C" const unsigned char cfd_yunet_model[];
extern "C" const size_t cfd_yunet_model_length;

struct CFDDetector {
    enum Kind { yunet, haar } kind;
    cv::dnn::Net net;
    cv::CascadeClassifier cascade;
};

namespace {

void set_error(char *error, size_t size, const char *message) {
    if (error && size > 0) std::snprintf(error, size, "%s", message);
}

template <typename Body> int guarded(char *error, size_t size, Body body) {
    try {
        return body();
    } catch (const cv::Exception &e) {
        set_error(error, size, e.what());
    } catch (const std::bad_alloc &) {
        set_error(error, size, "out of memory");
    } catch (const std::exception &e) {
        set_error(error, size, e.what());
    } catch (...) {
        set_error(error, size, "unknown C++ exception");
    }
    return -1;
}

void quiet_opencv() {
    static bool done = false;
    if (!done) {
        cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_ERROR);
        done = true;
    }
}

// YuNet's raw outputs: per stride 8/16/32 one anchor per grid cell.
cv::Size padded_size(int width, int height) { return cv::Size((width + 31) / 32 * 32, (height + 31) / 32 * 32); }

std::vector<CFDFace> yunet_detect(CFDDetector &d, const cv::Mat &bgr, float threshold) {
    cv::dnn::Net &net = d.net;
    const cv::Size pad = padded_size(bgr.cols, bgr.rows);
    const int padW = pad.width, padH = pad.height;
    cv::Mat padded;
    cv::copyMakeBorder(bgr, padded, 0, padH - bgr.rows, 0, padW - bgr.cols, cv::BORDER_CONSTANT, cv::Scalar());
    net.setInput(cv::dnn::blobFromImage(padded));
    static const std::vector<cv::String> names = {"cls_8", "cls_16", "cls_32", "obj_8", "obj_16", "obj_32",
                                                  "bbox_8", "bbox_16", "bbox_32", "kps_8", "kps_16", "kps_32"};
    std::vector<cv::Mat> outputs;
    net.forward(outputs, names);

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

extern "C" size_t cfd_builtin_model_size(void) { return cfd_yunet_model_length; }

extern "C" int cfd_detect(CFDDetector *detector, const uint8_t *rgb, int width, int height, float score_threshold,
                          CFDFace *faces, int capacity, int *count, char *error, size_t error_size) {
    *count = 0;
    return guarded(error, error_size, [&] {
        if (!detector || !rgb || width <= 0 || height <= 0) throw std::invalid_argument("invalid detector input");
        cv::Mat view(height, width, CV_8UC3, const_cast<uint8_t *>(rgb));
        cv::Mat bgr;
        cv::cvtColor(view, bgr, cv::COLOR_RGB2BGR);
        std::vector<CFDFace> found = detector->kind == CFDDetector::yunet
                                         ? yunet_detect(*detector, bgr, score_threshold)
                                         : haar_detect(detector->cascade, bgr, score_threshold);
        std::stable_sort(found.begin(), found.end(), [](const CFDFace &a, const CFDFace &b) { return a.score > b.score; });
        const int n = std::min<int>(capacity, static_cast<int>(found.size()));
        std::copy(found.begin(), found.begin() + n, faces);
        *count = n;
        return 0;
    });
}
