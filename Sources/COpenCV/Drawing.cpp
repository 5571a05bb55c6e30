// Drawing on packed 8-bit RGB buffers for annotated pictures and contact sheets: OpenCV's antialiased
// lines and its built-in Hershey font (no font files, the same pixels on every machine). Colours are
// given as R, G, B and written in that order. try/catch at every entry.
#include "COpenCV.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <vector>
#include "guarded.hpp"

namespace {

cv::Mat wrap(uint8_t *rgb, int width, int height) { return cv::Mat(height, width, CV_8UC3, rgb); }
cv::Scalar colour(const uint8_t c[3]) { return cv::Scalar(c[0], c[1], c[2]); }

// Sub-pixel coordinates: OpenCV takes fixed point with `shift` fractional bits.
constexpr int shift = 4;
cv::Point fixed(float x, float y) { return cv::Point(cvRound(x * (1 << shift)), cvRound(y * (1 << shift))); }

} // namespace

extern "C" int ocv_draw_polyline(uint8_t *rgb, int width, int height, const float *xy, int count, int closed,
                                 const uint8_t colour_rgb[3], int thickness) {
    return facecrop::guarded(nullptr, 0, [&] {
        if (count <= 0) return;
        cv::Mat image = wrap(rgb, width, height);
        std::vector<cv::Point> points;
        for (int i = 0; i < count; i++) points.push_back(fixed(xy[2 * i], xy[2 * i + 1]));
        if (count == 1) {
            cv::circle(image, points[0], (thickness + 1) << shift, colour(colour_rgb), cv::FILLED, cv::LINE_AA, shift);
        } else {
            cv::polylines(image, points, closed != 0, colour(colour_rgb), thickness, cv::LINE_AA, shift);
        }
    });
}

extern "C" int ocv_fill_rect(uint8_t *rgb, int width, int height, int x, int y, int w, int h, const uint8_t colour_rgb[3]) {
    return facecrop::guarded(nullptr, 0, [&] {
        cv::Mat image = wrap(rgb, width, height);
        cv::rectangle(image, cv::Rect(x, y, w, h), colour(colour_rgb), cv::FILLED);
    });
}

extern "C" void ocv_text_size(const char *text, double scale, int thickness, int *width, int *height, int *baseline) {
    try {
        int base = 0;
        cv::Size size = cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, scale, thickness, &base);
        *width = size.width;
        *height = size.height;
        *baseline = base + thickness;
    } catch (...) {
        *width = *height = *baseline = 0;
    }
}

extern "C" int ocv_draw_text(uint8_t *rgb, int width, int height, const char *text, int x, int y, double scale,
                             int thickness, const uint8_t colour_rgb[3]) {
    return facecrop::guarded(nullptr, 0, [&] {
        cv::Mat image = wrap(rgb, width, height);
        int base = 0;
        cv::Size size = cv::getTextSize(text, cv::FONT_HERSHEY_SIMPLEX, scale, thickness, &base);
        cv::putText(image, text, cv::Point(x, y + size.height), cv::FONT_HERSHEY_SIMPLEX, scale, colour(colour_rgb),
                    thickness, cv::LINE_AA);
    });
}

extern "C" int ocv_shrink_rgb(const uint8_t *rgb, int width, int height, uint8_t *out, int out_width, int out_height) {
    if (!rgb || !out || width <= 0 || height <= 0 || out_width <= 0 || out_height <= 0 || out_width > width || out_height > height)
        return -1;
    try {
        cv::Mat to = wrap(out, out_width, out_height);
        cv::resize(cv::Mat(height, width, CV_8UC3, const_cast<uint8_t *>(rgb)), to, to.size(), 0, 0, cv::INTER_AREA);
        return 0;
    } catch (...) {
        return -1;
    }
}
