// Capture-quality measures on a face crop behind the C header: sharpness (Crete), noise (Immerkaer), exposure,
// the expression model (FER mini-XCEPTION through cv::dnn) and JPEG blocking. try/catch at every entry.
#include "COpenCV.h"

#include <opencv2/core.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>
#include "guarded.hpp"
#include "opencv_log.hpp"

extern "C" const unsigned char ocv_fer_model[];
extern "C" const size_t ocv_fer_model_length;

struct OCVExpression {
    cv::dnn::Net net;
};

using facecrop::guarded;
using facecrop::quiet_opencv;
using facecrop::set_error;

extern "C" OCVExpression *ocv_expression_create(const char *model_path, char *error, size_t error_size) {
    OCVExpression *result = nullptr;
    guarded(error, error_size, [&] {
        quiet_opencv();
        auto model = std::make_unique<OCVExpression>();
        model->net = model_path && *model_path
                         ? cv::dnn::readNetFromONNX(model_path)
                         : cv::dnn::readNetFromONNX(reinterpret_cast<const char *>(ocv_fer_model), ocv_fer_model_length);
        if (model->net.empty()) throw std::runtime_error("the expression model could not be read");
        result = model.release();
        return 0;
    });
    return result;
}

extern "C" void ocv_expression_free(OCVExpression *model) { delete model; }

namespace {

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

// Crete, Dolmiere, Ladret, Nicolas: "The blur effect: perception and estimation with a new no-reference
// perceptual blur metric" (2007). 0 for a sharp image, growing towards 1 as it blurs. Summed over the face's
// edges only (the 10 % of its pixels with the strongest Sobel gradient, the complement of where the noise is
// measured): on the flat rest, noise reads as detail, so added noise made a face "sharper". At a face's own
// resolution noise also adds to the steps on the edges, so `noise` (its sigma, 0...1, measured on the same
// pixels) is taken off each step by what two independent noisy pixels differ by on average, 2/sqrt(pi) sigma.
float crete_blur(const cv::Mat &f, float noise) {
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
        da = cv::max(da - static_cast<float>(2 / std::sqrt(M_PI)) * noise, 0.0);
        cv::Mat v = cv::max(da - db, 0.0);
        const double sf = cv::mean(da, mask)[0], sv = cv::mean(v, mask)[0];  // means over the same pixels
        return sf > 0 ? static_cast<float>((sf - sv) / sf) : 1.f;
    };
    return std::max(direction(f, bv, true), direction(f, bh, false));
}

// The measures of ocv_face_metrics on an RGB crop (at least 16x16).
void face_metrics(const cv::Mat &view, OCVExpression *expression, OCVFaceMetrics *out) {
    const int width = view.cols, height = view.rows;
    cv::Mat grey, f, f255;
    cv::cvtColor(view, grey, cv::COLOR_RGB2GRAY);
    grey.convertTo(f255, CV_32F);
    f = f255 / 255.0;
    // The face itself: the central part of the square crop (the crop has a border around the box).
    const cv::Rect inner(width / 8, height / 8, width * 3 / 4, height * 3 / 4);
    const cv::Mat face = f(inner);
    cv::Scalar mean, stddev;
    cv::meanStdDev(face, mean, stddev);
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
}

// The sharpness of ocv_blur on an RGB crop (at least 16x16).
float face_blur(const cv::Mat &view) {
    const int width = view.cols, height = view.rows;
    cv::Mat grey, f;
    cv::cvtColor(view, grey, cv::COLOR_RGB2GRAY);
    grey.convertTo(f, CV_32F, 1 / 255.0);
    const cv::Rect inner(width / 8, height / 8, width * 3 / 4, height * 3 / 4);
    const cv::Mat f255 = f * 255.0;
    return crete_blur(f(inner), immerkaer_noise(f255(inner)) / 255.f);
}

// `rgb` scaled to `size`: by area when shrinking (no aliasing), bilinear when enlarging.
cv::Mat scaled(const cv::Mat &rgb, cv::Size size) {
    if (rgb.size() == size) return rgb;
    cv::Mat out;
    const bool shrinking = size.width <= rgb.cols && size.height <= rgb.rows;
    cv::resize(rgb, out, size, 0, 0, shrinking ? cv::INTER_AREA : cv::INTER_LINEAR);
    return out;
}

} // namespace

extern "C" int ocv_face_metrics(const uint8_t *rgb, int width, int height, OCVExpression *expression, OCVFaceMetrics *out,
                                char *error, size_t error_size) {
    return guarded(error, error_size, [&] {
        if (!rgb || !out || width < 16 || height < 16) throw std::invalid_argument("face crop too small to measure");
        face_metrics(cv::Mat(height, width, CV_8UC3, const_cast<uint8_t *>(rgb)), expression, out);
        return 0;
    });
}

extern "C" int ocv_blur(const uint8_t *rgb, int width, int height, float *blur, char *error, size_t error_size) {
    return guarded(error, error_size, [&] {
        if (!rgb || !blur || width < 16 || height < 16) throw std::invalid_argument("face crop too small to measure");
        *blur = face_blur(cv::Mat(height, width, CV_8UC3, const_cast<uint8_t *>(rgb)));
        return 0;
    });
}

extern "C" int ocv_face_screen(const uint8_t *rgb, int width, int height, int x, int y, int w, int h, int sharp_width,
                               int sharp_height, int measure_width, int measure_height, OCVFaceMetrics *out, float *blur,
                               char *error, size_t error_size) {
    return guarded(error, error_size, [&] {
        if (!rgb || !out || !blur || width <= 0 || height <= 0) throw std::invalid_argument("invalid frame");
        if (x < 0 || y < 0 || w < 1 || h < 1 || x > width - w || y > height - h) throw std::invalid_argument("face cut outside the frame");
        if (sharp_width < 16 || sharp_height < 16 || measure_width < 16 || measure_height < 16 || sharp_width > 4096 ||
            sharp_height > 4096 || measure_width > 4096 || measure_height > 4096)
            throw std::invalid_argument("face crop too small to measure");
        const cv::Mat frame(height, width, CV_8UC3, const_cast<uint8_t *>(rgb));
        const cv::Mat sharp = scaled(frame(cv::Rect(x, y, w, h)), cv::Size(sharp_width, sharp_height));
        *blur = face_blur(sharp);
        face_metrics(scaled(sharp, cv::Size(measure_width, measure_height)), nullptr, out);
        return 0;
    });
}

extern "C" int ocv_blockiness(const uint8_t *rgb, int width, int height, float *ratio, char *error, size_t error_size) {
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
