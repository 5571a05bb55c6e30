// Frame registration behind the C header: the shift between two greyscale frames by phase correlation
// (best-frame's stability). try/catch at every entry.
#include "COpenCV.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <vector>
#include "guarded.hpp"

using facecrop::guarded;
using facecrop::set_error;

extern "C" int ocv_phase_correlate(const uint8_t *previous, const uint8_t *current, int width, int height, double *dx,
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
