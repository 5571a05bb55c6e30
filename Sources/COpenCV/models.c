// The CenterFace and YuNet face detectors and the FER expression model (all MIT: Models/LICENSE-*.txt) built into the library, so the facecrop binary needs
// no model file at run time. scripts/fetch-models.sh checks the file's sha256 before any build. CenterFace is built
// in as centerface-split.onnx: the published net with its widest blocks split into channel groups, the same
// function in less working memory (scripts/split-centerface.py).
#include <stddef.h>

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc23-extensions"
const unsigned char ocv_yunet_model[] = {
#embed "../../Models/face_detection_yunet_2023mar.onnx"
};
const unsigned char ocv_centerface_model[] = {
#embed "../../Models/centerface-split.onnx"
};
const unsigned char ocv_fer_model[] = {
#embed "../../Models/fer_emotion_minixception.onnx"
};
#pragma clang diagnostic pop
const size_t ocv_yunet_model_length = sizeof(ocv_yunet_model);
const size_t ocv_centerface_model_length = sizeof(ocv_centerface_model);
const size_t ocv_fer_model_length = sizeof(ocv_fer_model);
