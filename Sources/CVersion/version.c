// The VERSION file at the package root, built into the library (see include/CVersion.h).
#include "CVersion.h"

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc23-extensions"
static const char bytes[] = {
#embed "../../VERSION"
};
#pragma clang diagnostic pop
const char *const cfc_version = bytes;
const size_t cfc_version_length = sizeof(bytes);
