#!/usr/bin/env python3
"""Measure facecrop's face-detection accuracy and crop quality on the faces-dev photo set.

Reads ../shared/testdata/faces-dev/manifest.json (relative to the repository root) or --data DIR, and
skips cleanly (exit 0) when that folder is absent. For every image it runs

    facecrop detect IMAGE --json                                   -> detection recall / precision
    facecrop IMAGE --aspect A --margin 100000 --dry-run --json     -> share of gt faces kept, A in 16:9 1:1 9:16

Detections are matched to ground-truth boxes greedily at IoU >= 0.3 (all pairs sorted by IoU, descending,
matched one to one). A gt face is "kept" by a crop when >= 90 % of its box area lies inside the crop rect.
As a check of the metric, the script also computes from the gt boxes alone a plain centre crop and the best
possible placement of the largest crop; these must reproduce the reference figures (0.865/0.702/0.447 and
0.976/0.865/0.625).

With --turn d90|d180|d270 the photos are first turned clockwise with `vips rot` (into a temporary folder, with no
EXIF orientation: pictures stored turned) and their boxes with them.

Standard library only (and the vips command for --turn). Usage:
    scripts/accuracy.py [--bin PATH] [--detector centerface|yunet|haar] [--data DIR] [--jobs 2] [--json] [--list]
                        [--turn d90|d180|d270]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DATA = os.path.normpath(os.path.join(REPO, "..", "shared", "testdata", "faces-dev"))
DEFAULT_BIN = os.path.join(REPO, ".build", "release", "facecrop")
ASPECTS = [(16, 9), (1, 1), (9, 16)]
IOU_MIN = 0.3
KEPT_MIN = 0.9
TIMEOUT = 180

# Reference figures, measured with other tools on the same 65 images / 208 faces (hard-coded).
REFERENCE = {
    "yunet_opencv_4_14": {"label": "YuNet, OpenCV 4.14 FaceDetectorYN", "recall": 0.856, "precision": 0.953},
    "haar": {"label": "Haar cascade", "recall": 0.221},
    "best_placement": {"label": "best possible placement", "kept": [0.976, 0.865, 0.625]},
    "centre_crop": {"label": "plain centre crop", "kept": [0.865, 0.702, 0.447]},
    "smartcrop_py": {"label": "smartcrop.py", "kept": [0.880, 0.692, 0.476]},
    "vips_attention": {"label": "libvips attention", "kept": [0.832, 0.668, 0.423]},
}
# The bars a change must not fall below, printed beside the figures.
BARS = {"recall": 0.92, "precision": 0.96, "kept": [0.97, 0.84, 0.61]}


def aspect_name(a):
    return "%d:%d" % a


# ---------------------------------------------------------------- geometry

def iou(a, b):
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    iw = min(ax + aw, bx + bw) - max(ax, bx)
    ih = min(ay + ah, by + bh) - max(ay, by)
    if iw <= 0 or ih <= 0:
        return 0.0
    inter = iw * ih
    union = aw * ah + bw * bh - inter
    return inter / union if union > 0 else 0.0


def kept(face, crop):
    """True when >= 90 % of the gt box area lies inside the crop rect."""
    x, y, w, h = face
    cx, cy, cw, ch = crop
    iw = max(0, min(x + w, cx + cw) - max(x, cx))
    ih = max(0, min(y + h, cy + ch) - max(y, cy))
    return iw * ih >= KEPT_MIN * w * h


def largest_size(W, H, a, b):
    """Size of the largest a:b rect that fits in W x H."""
    if W * b > H * a:
        return round(H * a / b), H
    return W, round(W * b / a)


def centre_crop(W, H, a, b):
    cw, ch = largest_size(W, H, a, b)
    return ((W - cw) // 2, (H - ch) // 2, cw, ch)


def best_placement_kept(W, H, faces, a, b):
    """Most gt faces that any integer placement of the largest a:b crop keeps (exact, by interval sweep)."""
    cw, ch = largest_size(W, H, a, b)
    horiz = cw < W                      # the crop slides horizontally (full height) or vertically
    L, slack = (cw, W - cw) if horiz else (ch, H - ch)
    intervals = []
    for x, y, w, h in faces:
        f, s = (x, w) if horiz else (y, h)
        o, os_ = (y, h) if horiz else (x, w)
        D = ch if horiz else cw
        cover = max(0, min(o + os_, D) - max(o, 0))      # overlap along the fixed axis
        if cover <= 0 or w * h <= 0:
            continue
        need = KEPT_MIN * w * h / cover                 # overlap needed along the sliding axis
        if need > min(s, L) + 1e-9:
            continue
        lo = max(0, math.ceil(f + need - L - 1e-9))
        hi = min(slack, math.floor(f + s - need + 1e-9))
        if lo <= hi:
            intervals.append((lo, hi))
    best = 0
    for p, _ in intervals:
        best = max(best, sum(1 for lo, hi in intervals if lo <= p <= hi))
    return best


def greedy_match(dets, gts):
    """Greedy one-to-one matching at IoU >= 0.3. Returns list of (det index, gt index, iou)."""
    pairs = []
    for i, d in enumerate(dets):
        for j, g in enumerate(gts):
            v = iou(d, g)
            if v >= IOU_MIN:
                pairs.append((v, i, j))
    pairs.sort(key=lambda t: -t[0])
    used_d, used_g, matches = set(), set(), []
    for v, i, j in pairs:
        if i in used_d or j in used_g:
            continue
        used_d.add(i)
        used_g.add(j)
        matches.append((i, j, v))
    return matches


def turned_entries(entries, data, angle, folder):
    """The photos turned clockwise by `angle` (vips rot: stored turned, no EXIF orientation), written into
    `folder`, with their sizes and boxes turned alike."""
    out = []
    for e in entries:
        W, H = e["width"], e["height"]
        land = {"d90": lambda x, y: (H - y, x), "d180": lambda x, y: (W - x, H - y), "d270": lambda x, y: (y, W - x)}[angle]
        dst = os.path.join(folder, os.path.basename(e["image"]))
        subprocess.run(["vips", "rot", os.path.join(data, e["image"]), dst, angle], check=True)
        faces = []
        for x, y, w, h in e["faces"]:
            (ax, ay), (bx, by) = land(x, y), land(x + w, y + h)
            faces.append([min(ax, bx), min(ay, by), abs(ax - bx), abs(ay - by)])
        size = (H, W) if angle in ("d90", "d270") else (W, H)
        out.append(dict(e, image=dst, width=size[0], height=size[1], faces=faces))
    return out


# ---------------------------------------------------------------- running facecrop

def rect_of(obj, where):
    try:
        r = obj["rect"]
        return (float(r["x"]), float(r["y"]), float(r["width"]), float(r["height"]))
    except (KeyError, TypeError) as e:
        raise ValueError("%s: missing/invalid field %s in %s" % (where, e, json.dumps(obj)[:200]))


def run_facecrop(cmd):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, "timeout after %ds" % TIMEOUT, time.monotonic() - t0
    dt = time.monotonic() - t0
    if p.returncode != 0:
        msg = p.stderr.decode(errors="replace").strip().splitlines()
        return None, "exit %d: %s" % (p.returncode, msg[-1] if msg else "(no stderr)"), dt
    try:
        return json.loads(p.stdout.decode()), None, dt
    except ValueError as e:
        return None, "invalid JSON (%s): %r" % (e, p.stdout[:200]), dt


def task(args, entry, kind, aspect=None):
    path = os.path.join(args.data, entry["image"])
    det = ["--detector", args.detector] if args.detector else []
    if kind == "detect":
        cmd = [args.bin, "detect", path, "--json"] + det
    else:
        cmd = [args.bin, path, "--aspect", aspect_name(aspect), "--margin", "100000", "--dry-run", "--json"] + det
    out, err, dt = run_facecrop(cmd)
    res = {"image": entry["image"], "kind": kind, "aspect": aspect, "error": err, "seconds": dt}
    if err:
        res["cmd"] = " ".join(cmd)
        return res
    try:
        inp = out["input"]
        res["size"] = (int(inp["width"]), int(inp["height"]))
        if kind == "detect":
            faces = out["faces"]
            res["dets"] = [rect_of(f, "faces[%d]" % i) for i, f in enumerate(faces)]
            res["conf"] = [f.get("confidence") for f in faces]
        else:
            res["crop"] = rect_of(out["crop"], "crop")
            res["nfaces"] = len(out.get("faces", []))
    except (KeyError, TypeError, ValueError) as e:
        res["error"] = "unexpected JSON (%s: %s): %s" % (type(e).__name__, e, json.dumps(out)[:300])
        res["cmd"] = " ".join(cmd)
    return res


# ---------------------------------------------------------------- main

def fmt(v, width=7):
    if v is None:
        return " " * (width - 1) + "-"
    if isinstance(v, str):
        return v.rjust(width)
    return ("%.3f" % v).rjust(width)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=DEFAULT_BIN, help="facecrop binary (default: .build/release/facecrop)")
    ap.add_argument("--detector", choices=["centerface", "yunet", "haar"], help="passed through to facecrop")
    ap.add_argument("--data", default=DEFAULT_DATA, help="faces-dev folder (default: ../shared/testdata/faces-dev)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel facecrop processes (default 2)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--list", action="store_true", help="print per-image misses")
    ap.add_argument("--turn", choices=["d90", "d180", "d270"], help="turn the photos clockwise first (stored turned)")
    args = ap.parse_args()

    manifest = os.path.join(args.data, "manifest.json")
    if not os.path.isfile(manifest):
        print("accuracy: %s not found, skipping (the faces-dev photos are not part of the repository)" % manifest)
        return 0
    if not (os.path.isfile(args.bin) and os.access(args.bin, os.X_OK)):
        print("accuracy: facecrop binary not found at %s (build with `swift build -c release` or pass --bin)"
              % args.bin, file=sys.stderr)
        return 1
    with open(manifest) as f:
        entries = json.load(f)
    if args.turn:
        with tempfile.TemporaryDirectory(prefix="accuracy-turned-") as folder:
            return report(args, turned_entries(entries, args.data, args.turn, folder))
    return report(args, entries)


def report(args, entries):

    jobs = []
    for e in entries:
        jobs.append((e, "detect", None))
        for a in ASPECTS:
            jobs.append((e, "crop", a))
    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda j: task(args, *j), jobs))
    elapsed = time.monotonic() - t0

    by_image = {}
    for r in results:
        by_image.setdefault(r["image"], {})[(r["kind"], r["aspect"])] = r

    errors, warnings, misses = [], [], []
    tp = fp = fn = 0
    kept_n = {a: 0 for a in ASPECTS}
    centre_n = {a: 0 for a in ASPECTS}
    best_n = {a: 0 for a in ASPECTS}
    subset_stats = {}
    n_gt = 0
    for e in entries:
        img, W, H = e["image"], e["width"], e["height"]
        gts = [tuple(float(v) for v in g) for g in e["faces"]]
        n_gt += len(gts)
        rs = by_image[img]
        st = subset_stats.setdefault(e.get("subset", "?"), {"gt": 0, "tp": 0, "fp": 0})
        st["gt"] += len(gts)
        for a in ASPECTS:
            cc = centre_crop(W, H, *a)
            centre_n[a] += sum(kept(g, cc) for g in gts)
            best_n[a] += best_placement_kept(W, H, gts, *a)

        d = rs[("detect", None)]
        if d["error"]:
            errors.append("%s detect: %s\n    %s" % (img, d["error"], d["cmd"]))
            fn += len(gts)
        else:
            if d["size"] != (W, H):
                warnings.append("%s: facecrop reports %dx%d, manifest says %dx%d" % (img, *d["size"], W, H))
            m = greedy_match(d["dets"], gts)
            mg = {j for _, j, _ in m}
            md = {i for i, _, _ in m}
            tp += len(m)
            fp += len(d["dets"]) - len(m)
            fn += len(gts) - len(m)
            st["tp"] += len(m)
            st["fp"] += len(d["dets"]) - len(m)
            for j, g in enumerate(gts):
                if j not in mg:
                    best = max([iou(dd, g) for dd in d["dets"]] + [0.0])
                    misses.append((img, "FN gt %s (best IoU %.2f)" % (list(map(int, g)), best)))
            for i, dd in enumerate(d["dets"]):
                if i not in md:
                    c = d["conf"][i]
                    misses.append((img, "FP det %s conf %s" % (list(map(int, dd)),
                                                               "%.2f" % c if isinstance(c, (int, float)) else c)))

        for a in ASPECTS:
            r = rs[("crop", a)]
            if r["error"]:
                errors.append("%s crop %s: %s\n    %s" % (img, aspect_name(a), r["error"], r["cmd"]))
                continue
            cx, cy, cw, ch = r["crop"]
            if cx < -0.5 or cy < -0.5 or cx + cw > W + 0.5 or cy + ch > H + 0.5:
                warnings.append("%s %s: crop %s extends outside %dx%d" % (img, aspect_name(a), r["crop"], W, H))
            if cw > 0 and ch > 0 and abs(cw / ch - a[0] / a[1]) > 2.0 / min(cw, ch):
                warnings.append("%s %s: crop %s has aspect %.4f" % (img, aspect_name(a), r["crop"], cw / ch))
            lw, lh = largest_size(W, H, *a)
            if cw * ch < 0.98 * lw * lh:
                warnings.append("%s %s: crop %s smaller than the largest %dx%d" % (img, aspect_name(a), r["crop"], lw, lh))
            k = [kept(g, r["crop"]) for g in gts]
            kept_n[a] += sum(k)
            cut = [list(map(int, g)) for g, kk in zip(gts, k) if not kk]
            if cut:
                misses.append((img, "crop %-4s %s cuts %d/%d gt: %s" % (aspect_name(a), list(map(int, r["crop"])),
                                                                      len(cut), len(gts), cut)))

    recall = tp / (tp + fn) if tp + fn else None
    precision = tp / (tp + fp) if tp + fp else None
    figures = {
        "detector": args.detector or "default",
        "turn": args.turn,
        "binary": args.bin,
        "images": len(entries),
        "gt_faces": n_gt,
        "detection": {"tp": tp, "fp": fp, "fn": fn, "recall": recall, "precision": precision,
                      "iou_min": IOU_MIN},
        "kept": {aspect_name(a): kept_n[a] / n_gt for a in ASPECTS},
        "check_from_gt": {
            "centre_crop_kept": {aspect_name(a): centre_n[a] / n_gt for a in ASPECTS},
            "best_placement_kept": {aspect_name(a): best_n[a] / n_gt for a in ASPECTS},
        },
        "by_subset": {k: {"gt": v["gt"], "recall": v["tp"] / v["gt"] if v["gt"] else None, "fp": v["fp"]}
                      for k, v in sorted(subset_stats.items())},
        "errors": len(errors),
        "warnings": len(warnings),
        "seconds": round(elapsed, 1),
        "reference": REFERENCE,
        "bars": BARS,
    }

    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        K = [aspect_name(a) for a in ASPECTS]
        hdr = "%-44s %7s %7s   %7s %7s %7s" % ("", "recall", "precis.", "kept" + K[0], "kept" + K[1], "kept" + K[2])
        print("facecrop accuracy on %d images%s, %d gt faces (match IoU >= %.1f, kept = >= 90%% of box inside crop), %.0f s"
              % (len(entries), " turned " + args.turn if args.turn else "", n_gt, IOU_MIN, elapsed))
        print(hdr)
        print("-" * len(hdr))

        def row(label, r=None, p=None, k=(None, None, None)):
            print("%-44s %s %s   %s %s %s" % (label, fmt(r), fmt(p), fmt(k[0]), fmt(k[1]), fmt(k[2])))

        row("facecrop (%s)  TP %d FP %d FN %d" % (figures["detector"], tp, fp, fn), recall, precision,
            [kept_n[a] / n_gt for a in ASPECTS])
        row("check, from gt: plain centre crop", k=[centre_n[a] / n_gt for a in ASPECTS])
        row("check, from gt: best possible placement", k=[best_n[a] / n_gt for a in ASPECTS])
        print("reference, measured with other tools:")
        ref = REFERENCE
        row("  " + ref["yunet_opencv_4_14"]["label"], ref["yunet_opencv_4_14"]["recall"], ref["yunet_opencv_4_14"]["precision"])
        row("  " + ref["haar"]["label"], ref["haar"]["recall"])
        for key in ("best_placement", "centre_crop", "smartcrop_py", "vips_attention"):
            row("  " + ref[key]["label"], k=ref[key]["kept"])
        print("%-44s %s %s   %s %s %s" % ("bar", fmt(">=%.2f" % BARS["recall"]), fmt(">=%.2f" % BARS["precision"]),
                                          *[fmt(">=%.2f" % t) for t in BARS["kept"]]))
        print("recall by subset: " + ", ".join("%s %s (%d gt, %d FP)" % (k, "%.3f" % v["recall"] if v["recall"] is not None else "-",
                                                                          v["gt"], v["fp"])
                                                for k, v in figures["by_subset"].items()))
        ok_det = recall is not None and precision is not None and recall >= BARS["recall"] and precision >= BARS["precision"]
        ok_kept = all(kept_n[a] / n_gt >= t for a, t in zip(ASPECTS, BARS["kept"]))
        print("bars: detection %s, kept %s" % ("at or above" if ok_det else "BELOW", "at or above" if ok_kept else "BELOW"))

    if args.list:
        out = sys.stdout if not args.json else sys.stderr
        print("\nper-image misses:", file=out)
        last = None
        for img, msg in misses:
            if img != last:
                print(img, file=out)
                last = img
            print("    " + msg, file=out)
    for w in warnings:
        print("warning: " + w, file=sys.stderr)
    for e in errors[:20]:
        print("error: " + e, file=sys.stderr)
    if len(errors) > 20:
        print("error: ... and %d more" % (len(errors) - 20), file=sys.stderr)
    if errors:
        print("accuracy: %d facecrop invocation(s) failed; figures above count them as misses" % len(errors),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
