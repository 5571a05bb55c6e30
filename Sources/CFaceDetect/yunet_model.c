// The YuNet model (MIT, see Models/LICENSE-yunet.txt) built into the library, so the facecrop binary needs
// no model file at run time. scripts/fetch-models.sh checks the file's sha256 before any build.
#include <stddef.h>

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc23-extensions"
const unsigned char cfd_yunet_model[] = {
#embed "../../Models/face_detection_yunet_2023mar.onnx"
};
#pragma clang diagnostic pop
const size_t cfd_yunet_model_length = sizeof(cfd_yunet_model);
