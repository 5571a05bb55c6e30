// Exists so the C shim can include libvips through a module; Swift code never imports this directly.
#include <vips/vips.h>
