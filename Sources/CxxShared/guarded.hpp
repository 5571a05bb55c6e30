// guarded(): the one way C++ shims (COpenCV, CLandmarks) run their work. A C++ exception crossing into
// Swift aborts the process, so every extern "C" entry runs its body through it: every exception is caught,
// and its message lands in the caller's error buffer.
#pragma once

#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <type_traits>

namespace facecrop {

inline void set_error(char *error, std::size_t size, const char *message) {
    if (error && size > 0) std::snprintf(error, size, "%s", message);
}
inline void set_error(char *error, std::size_t size, const std::string &message) { set_error(error, size, message.c_str()); }

/// "it cannot be read: " and errno's words, lower-case as in facecrop's other messages: why a model file failed.
inline std::string unreadable() {
    std::string reason = std::strerror(errno);
    if (!reason.empty()) reason[0] = char(std::tolower(static_cast<unsigned char>(reason[0])));
    return "it cannot be read: " + reason;
}

/// Runs `body` with every exception caught. Returns its int status (0 for a body returning nothing), or -1
/// with the exception's message in `error` (which may be null).
template <typename Body> int guarded(char *error, std::size_t size, Body body) {
    try {
        if constexpr (std::is_void_v<decltype(body())>) {
            body();
            return 0;
        } else {
            return body();
        }
    } catch (const std::bad_alloc &) {
        set_error(error, size, "out of memory");
    } catch (const std::exception &e) {
        set_error(error, size, e.what());
    } catch (...) {
        set_error(error, size, "unknown C++ exception");
    }
    return -1;
}

} // namespace facecrop
