// Shared by the OpenCV shim's files: OpenCV's own log lines silenced once, so errors reach the caller only
// through the error buffers.
#pragma once

#include <opencv2/core/utils/logger.hpp>

namespace facecrop {

inline void quiet_opencv() {
    static bool done = false;
    if (!done) {
        cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_ERROR);
        done = true;
    }
}

}  // namespace facecrop
