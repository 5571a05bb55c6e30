#!/usr/bin/env python3
"""Measure the shape and scores of each detector's face boxes: the figures facecrop's per-detector constants
(FaceCropCore/DetectorProfile.swift) were fitted from.

- whole-face proportions: width / height of the boxes of whole faces (not within 10 % of the border) in the
  repository's own pictures (Samples/, Golden/*/input.*), 10th and 90th percentiles -> narrowestFace, widestFace;
- dlib's box: on faces-dev's dlib subset (tight, brows-to-chin boxes drawn for dlib's own detector), the ground
  truth box relative to the matched detection: width and height ratios and the vertical shift of the centre in
  box heights, medians -> the landmark predictor's box;
- face height: the detector's box height over YuNet's for the same face (faces-dev, matched at IoU >= 0.5),
  median -> how `--margin N%` reads across detectors;
- confidence: deciles of the scores of faces matched to ground truth on faces-dev -> the confidence ramp.

Usage: scripts/detector-boxes.py [--bin PATH] [--detector centerface] [--data DIR]
Skips the faces-dev parts cleanly when that folder is absent.
"""
import argparse
import glob
import json
import os
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import accuracy  # noqa: E402

REPO = accuracy.REPO


def detect(binary, detector, path):
    out, err, _ = accuracy.run_facecrop([binary, "detect", path, "--json", "--detector", detector])
    if err:
        raise SystemExit("detector-boxes: %s: %s" % (path, err))
    return out["input"]["width"], out["input"]["height"], [
        (accuracy.rect_of(f, "face"), float(f["confidence"])) for f in out["faces"]]


def quantiles(values, qs):
    values = sorted(values)
    return [values[min(len(values) - 1, int(q * len(values)))] for q in qs]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=accuracy.DEFAULT_BIN)
    ap.add_argument("--detector", default="centerface", choices=["centerface", "yunet"])
    ap.add_argument("--data", default=accuracy.DEFAULT_DATA)
    args = ap.parse_args()
    pool = ThreadPoolExecutor(2)

    pictures = sorted(glob.glob(os.path.join(REPO, "Samples", "*.*")) + glob.glob(os.path.join(REPO, "Golden", "*", "input.*")))
    aspects = []
    for w, h, faces in pool.map(lambda p: detect(args.bin, args.detector, p), pictures):
        for (x, y, bw, bh), _ in faces:
            m = 0.1 * bh
            if x > m and y > m and x + bw < w - m and y + bh < h - m:
                aspects.append(bw / bh)
    p10, p50, p90 = quantiles(aspects, [0.1, 0.5, 0.9])
    print("%s: %d whole faces in Samples/ and Golden/: width/height p10 %.3f, median %.3f, p90 %.3f" % (
        args.detector, len(aspects), p10, p50, p90))

    manifest = os.path.join(args.data, "manifest.json")
    if not os.path.exists(manifest):
        print("detector-boxes: %s not found; skipping the faces-dev measurements" % manifest)
        return 0
    entries = json.load(open(manifest))
    paths = [os.path.join(args.data, e["image"]) for e in entries]
    mine = list(pool.map(lambda p: detect(args.bin, args.detector, p), paths))
    yunet = list(pool.map(lambda p: detect(args.bin, "yunet", p), paths))

    wr, hr, dy, dx, heights, scores = [], [], [], [], [], []
    for e, (_, _, faces), (_, _, yfaces) in zip(entries, mine, yunet):
        dets = [r for r, _ in faces]
        gts = [tuple(b) for b in e["faces"]]
        for i, j, _ in accuracy.greedy_match(dets, gts):
            scores.append(faces[i][1])
            if e["subset"] == "dlib_voc":
                (x, y, w, h), (gx, gy, gw, gh) = dets[i], gts[j]
                wr.append(gw / w)
                hr.append(gh / h)
                dy.append(((gy + gh / 2) - (y + h / 2)) / h)
                dx.append(((gx + gw / 2) - (x + w / 2)) / w)
        ys = [r for r, _ in yfaces]
        for i, j, v in accuracy.greedy_match(dets, ys):
            if v >= 0.5:
                heights.append(dets[i][3] / ys[j][3])
    med = statistics.median
    print("%s: dlib's box over the detector's, %d faces of the dlib subset: width x%.3f, height x%.3f, "
          "centre %+.3f of the width right, %+.3f of the height down (medians)" % (
              args.detector, len(wr), med(wr), med(hr), med(dx), med(dy)))
    print("%s: box height over YuNet's for the same face, %d faces: median %.3f" % (args.detector, len(heights), med(heights)))
    qs = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    print("%s: confidence of %d faces matched to ground truth, deciles: %s" % (
        args.detector, len(scores), " ".join("%.3f" % v for v in quantiles(scores, qs))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
