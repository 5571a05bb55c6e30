#!/usr/bin/env python3
"""Sweep a detector's score threshold and analysis size on the faces-dev photo set.

For each analysis size it runs `facecrop detect IMAGE --json --detector D --detect-size S --threshold LOW` once
per image, then scores every threshold from LOW upwards offline with the matching of scripts/accuracy.py (greedy,
IoU >= 0.3): recall, precision, faces reported on the photos without faces, and the median detection time.
This is how the default threshold and analysis size of each detector were chosen (fitted on faces-dev: the
figures are not held out). Skips cleanly (exit 0) when the photo set is absent.

Usage:
    scripts/detector-sweep.py [--bin PATH] [--detector centerface] [--sizes 320,480,640] [--low 0.3]
                              [--thresholds 0.3,0.35,...] [--data DIR] [--jobs 2] [--json]
"""
import argparse
import json
import os
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import accuracy  # noqa: E402  (same folder: matching and the faces-dev location)


def run(args, entry, size):
    path = os.path.join(args.data, entry["image"])
    cmd = [args.bin, "detect", path, "--json", "--detector", args.detector, "--detect-size", str(size),
           "--threshold", str(args.low)]
    out, err, _ = accuracy.run_facecrop(cmd)
    if err:
        raise SystemExit("detector-sweep: %s: %s\n    %s" % (entry["image"], err, " ".join(cmd)))
    faces = [(accuracy.rect_of(f, "face"), float(f["confidence"])) for f in out["faces"]]
    return entry, faces, float(out["timings"]["detect"])


def score(results, threshold):
    tp = fp = fn = neg_fp = 0
    for entry, faces, _ in results:
        dets = [r for r, c in faces if c >= threshold]
        gts = [tuple(b) for b in entry["faces"]]
        m = len(accuracy.greedy_match(dets, gts))
        tp += m
        fp += len(dets) - m
        fn += len(gts) - m
        if not gts:
            neg_fp += len(dets)
    recall = tp / (tp + fn) if tp + fn else 0.0
    precision = tp / (tp + fp) if tp + fp else 1.0
    return {"threshold": threshold, "tp": tp, "fp": fp, "fn": fn, "recall": recall, "precision": precision,
            "no_face_photo_detections": neg_fp}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=accuracy.DEFAULT_BIN)
    ap.add_argument("--detector", default="centerface", choices=["centerface", "yunet", "haar"])
    ap.add_argument("--sizes", default="320,416,480,640")
    ap.add_argument("--low", type=float, default=0.3, help="lowest threshold asked of facecrop")
    ap.add_argument("--thresholds", default="0.3,0.35,0.4,0.45,0.5,0.55,0.6,0.7,0.8")
    ap.add_argument("--data", default=accuracy.DEFAULT_DATA)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    manifest = os.path.join(args.data, "manifest.json")
    if not os.path.exists(manifest):
        print("detector-sweep: %s not found; skipping" % manifest)
        return 0
    entries = json.load(open(manifest))
    thresholds = [float(t) for t in args.thresholds.split(",") if float(t) >= args.low]
    table = []
    for size in [int(s) for s in args.sizes.split(",")]:
        with ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda e: run(args, e, size), entries))
        ms = statistics.median(t for _, _, t in results)
        for t in thresholds:
            row = score(results, t)
            row.update({"detector": args.detector, "size": size, "median_detect_ms": round(ms, 1)})
            table.append(row)
    if args.json:
        print(json.dumps(table, indent=2))
        return 0
    print("%-11s %5s %9s %7s %9s %4s %4s %4s %13s %9s" % (
        "detector", "size", "threshold", "recall", "precision", "TP", "FP", "FN", "no-face dets", "detect ms"))
    for r in table:
        print("%-11s %5d %9.2f %7.3f %9.3f %4d %4d %4d %13d %9.1f" % (
            r["detector"], r["size"], r["threshold"], r["recall"], r["precision"], r["tp"], r["fp"], r["fn"],
            r["no_face_photo_detections"], r["median_detect_ms"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
