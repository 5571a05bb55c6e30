#!/usr/bin/env python3
"""Derives Models/centerface-split.onnx, the CenterFace net built into facecrop, from Models/centerface.onnx.

The same network, computing the same function: its four widest blocks, at a half and a quarter of the input's
size, are each split into channel groups. A MobileNetV2 block expands its input with a 1x1 convolution, filters
each channel with a 3x3 depthwise convolution and projects back with a 1x1 convolution; the projection of all
channels equals the sum of the projections of each group of channels, so each group runs on its own and the
partial projections are added (the bias once). OpenCV's cv::dnn then holds one group's expanded tensor at a
time instead of all of them: at 640x480 the network's buffers take about 35 MB less (the first block's expanded
tensor alone is 96 channels at 320x240, 29.5 MB). Outputs agree with the original's to float rounding.

Needs the onnx and numpy packages (pip install onnx==1.23.2 protobuf==7.36.2 numpy==2.4.6, as
scripts/fetch-models.sh does); the output is byte-for-byte reproducible with those versions. Usage: scripts/split-centerface.py [SOURCE] [DESTINATION]
"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

# Output of each block's first convolution -> number of channel groups. 363 is the stem (3x3 convolution, stride
# 2, 32 channels at half size), 371 the first expansion (96 channels at half size), 379 and 388 the two
# expansions at a quarter size (144 channels). Measured at 640x480 and 640x384: more groups, or splitting the
# narrower blocks after them, saved little more and ran slower (docs/performance.md).
GROUPS = {"363": 2, "371": 4, "379": 2, "388": 2}


def split(model: onnx.ModelProto) -> onnx.ModelProto:
    graph = model.graph
    weights = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    consumers: dict[str, list[onnx.NodeProto]] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)

    def only_consumer(tensor: str, op: str) -> onnx.NodeProto:
        found = consumers.get(tensor, [])
        if len(found) != 1 or found[0].op_type != op:
            sys.exit(f"split-centerface: {tensor} is not read by exactly one {op}: not the expected CenterFace model")
        return found[0]

    def attributes(node: onnx.NodeProto) -> dict:
        return {a.name: helper.get_attribute_value(a) for a in node.attribute}

    def add_weight(name: str, value: np.ndarray) -> str:
        graph.initializer.append(numpy_helper.from_array(np.ascontiguousarray(value, dtype=np.float32), name))
        return name

    nodes, replaced = [], set()
    for node in graph.node:
        if id(node) in replaced:
            continue
        if node.op_type != "Conv" or node.output[0] not in GROUPS:
            nodes.append(node)
            continue
        relu1 = only_consumer(node.output[0], "Relu")
        depthwise = only_consumer(relu1.output[0], "Conv")
        relu2 = only_consumer(depthwise.output[0], "Relu")
        project = only_consumer(relu2.output[0], "Conv")
        replaced.update(id(n) for n in (relu1, depthwise, relu2, project))
        w, b = weights[node.input[1]], weights[node.input[2]]
        dw_w, dw_b = weights[depthwise.input[1]], weights[depthwise.input[2]]
        p_w, p_b = weights[project.input[1]], weights[project.input[2]]
        channels, groups = w.shape[0], GROUPS[node.output[0]]
        if (channels % groups or attributes(depthwise).get("group") != channels or p_w.shape[1] != channels
                or attributes(project).get("group", 1) != 1):
            sys.exit(f"split-centerface: the block at {node.output[0]} is not the expected CenterFace block")
        size = channels // groups
        total = None
        for g in range(groups):
            part, tag = slice(g * size, (g + 1) * size), f"{node.output[0]}_g{g}"
            nodes.append(helper.make_node(
                "Conv", [node.input[0], add_weight(tag + "_w", w[part]), add_weight(tag + "_b", b[part])], [tag + "_e"],
                **attributes(node)))
            nodes.append(helper.make_node("Relu", [tag + "_e"], [tag + "_er"]))
            nodes.append(helper.make_node(
                "Conv", [tag + "_er", add_weight(tag + "_dw", dw_w[part]), add_weight(tag + "_db", dw_b[part])],
                [tag + "_d"], **{**attributes(depthwise), "group": size}))
            nodes.append(helper.make_node("Relu", [tag + "_d"], [tag + "_dr"]))
            bias = p_b if g == 0 else np.zeros_like(p_b)
            nodes.append(helper.make_node(
                "Conv", [tag + "_dr", add_weight(tag + "_pw", p_w[:, part]), add_weight(tag + "_pb", bias)], [tag + "_p"],
                **attributes(project)))
            if total is None:
                total = tag + "_p"
            else:
                out = project.output[0] if g == groups - 1 else tag + "_s"
                nodes.append(helper.make_node("Add", [total, tag + "_p"], [out]))
                total = out
    if len(replaced) != 4 * len(GROUPS):
        sys.exit("split-centerface: not every block to split was found: not the expected CenterFace model")
    del graph.node[:]
    graph.node.extend(nodes)
    # The published file (IR version 4) also lists its weights as graph inputs: the replaced ones go from both.
    used = {name for node in graph.node for name in node.input}
    kept = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    inputs = [i for i in graph.input if i.name in used]
    del graph.input[:]
    graph.input.extend(inputs)
    stored = {t.name for t in graph.initializer}
    if [i.name for i in graph.input if i.name not in stored] != ["input.1"]:
        sys.exit("split-centerface: the net's only input without weights must be the image, input.1")
    onnx.checker.check_model(model)
    return model


def main() -> None:
    source = sys.argv[1] if len(sys.argv) > 1 else "Models/centerface.onnx"
    destination = sys.argv[2] if len(sys.argv) > 2 else "Models/centerface-split.onnx"
    onnx.save(split(onnx.load(source)), destination)


if __name__ == "__main__":
    main()
