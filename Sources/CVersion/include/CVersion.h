// CVersion exists so that facecrop's version is written in one place, the VERSION file at the package root:
// this target embeds that file at compile time, and FaceCropper.version, `facecrop --version`, JSON reports,
// batch manifests, the Debian package and the release tag all derive from it.
#ifndef CVERSION_H
#define CVERSION_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The bytes of the VERSION file (not NUL-terminated; may end with a newline).
extern const char *const cfc_version;
extern const size_t cfc_version_length;

#ifdef __cplusplus
}
#endif

#endif
