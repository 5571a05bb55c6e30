#!/usr/bin/env python3
"""Checks that capture quality falls as a photo degrades.

For each public-domain portrait and each degradation family, makes six increasingly degraded copies with
the `vips` command, scores them with `facecrop detect --quality --json` (the score of the degraded face,
found where it is expected to be after the degradation; 0 when it is not found), and reports Spearman's rho
between degradation level and score (a good score gives rho <= -0.9 for every family, averaged over the portraits).
Besides that mean it prints, per family: the median, the share of images at rho <= -0.9, rho over the levels
where the face is still detected (where the detector loses a face, the zeros that follow are ties, which count
against a strict fall), and how many images have no defined rho (every score equal, e.g. a face never
found): those are left out of the mean, not counted as 0.

The portraits are the three public-domain ones of ../shared/testdata/public-domain (three people), or, where
that folder is absent, their copies in the repository (Golden/, Samples/). The ramp constants were set on them,
so they are not an independent check; --faces-dev N also runs the families on N photos of
../shared/testdata/faces-dev (not used for tuning; skipped when the folder is absent), each cut down to a
portrait of its largest ground-truth face. Deterministic: the noise is seeded.

--mild-blur instead checks that a mild blur lowers the score at every step: true gaussian kernels of sigma 0.5,
1, 1.5, 2 and 3 (libvips' default kernel cuts sigma 0.5 down to nothing), every level written as PNG so that
only the blur differs, on the portraits and on every faces-dev photo whose largest face is at least 48 px tall.
It prints, per set, the share of faces whose score falls at every step (a face the detector loses counts as
falling) and the median rho.

Usage: scripts/quality-validation.py [--bin PATH] [--images DIR] [--faces-dev N] [--mild-blur] [--json]
"""
import argparse, json, math, os, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

FAMILIES = {
    "gaussian blur": [0, 1, 2, 3, 5, 8],          # sigma, pixels
    "motion blur": [1, 5, 9, 15, 23, 35],         # line length, pixels
    "under-exposure": [1.0, 0.75, 0.55, 0.4, 0.28, 0.18],
    "over-exposure": [1.0, 1.3, 1.6, 2.0, 2.5, 3.2],
    "noise": [0, 6, 12, 20, 32, 48],              # sigma, grey levels
    "jpeg compression": [95, 40, 20, 10, 5, 2],   # quality
    "downscaling": [1.0, 0.5, 0.3, 0.2, 0.13, 0.08],
    "in-plane rotation": [0, 10, 20, 30, 40, 55], # degrees
    "border crop": [0, 0.15, 0.3, 0.45, 0.6, 0.75],  # share of the face cut off at the left edge
}


def vips(*args):
    subprocess.run(["vips", *map(str, args)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def degrade(src, family, level, out, face, work):
    if family == "gaussian blur":
        vips("copy", src, out) if level == 0 else vips("gaussblur", src, out, level)
    elif family == "motion blur":
        mask = os.path.join(work, f"line{level}.mat")
        with open(mask, "w") as m:
            m.write(f"{level} 1 {level} 0\n" + " ".join(["1"] * level) + "\n")
        vips("conv", src, out, mask, "--precision", "float") if level > 1 else vips("copy", src, out)
    elif family in ("under-exposure", "over-exposure"):
        tmp = os.path.join(work, "lin.v")
        vips("linear", src, tmp, level, 0)
        vips("cast", tmp, out, "uchar")
    elif family == "noise":
        if level == 0:
            vips("copy", src, out)
        else:
            w, h, bands = header(src)
            noise, summed = os.path.join(work, "noise.v"), os.path.join(work, "sum.v")
            vips("gaussnoise", noise, w, h, "--sigma", level, "--mean", 0, "--seed", 42)
            vips("add", src, noise, summed)
            vips("cast", summed, out, "uchar")
    elif family == "jpeg compression":
        vips("copy", src, f"{out}[Q={level}]")
    elif family == "downscaling":
        vips("resize", src, out, level) if level < 1 else vips("copy", src, out)
    elif family == "in-plane rotation":
        vips("rotate", src, out, level) if level else vips("copy", src, out)
    elif family == "border crop":
        x, y, fw, fh = face
        w, h, _ = header(src)
        left = int(x + level * fw)
        vips("extract_area", src, out, left, 0, w - left, h) if left > 0 else vips("copy", src, out)


def header(path):
    out = subprocess.run(["vipsheader", "-a", path], capture_output=True, text=True, check=True).stdout
    fields = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
    return int(fields["width"]), int(fields["height"]), int(fields["bands"])


def tracked(family, level, size, face):
    """Where the centre of `face` (x, y, w, h) is after the degradation, and its width there."""
    x, y, w, h = face
    cx, cy = x + w / 2, y + h / 2
    if family == "downscaling":
        return cx * level, cy * level, w * level
    if family == "border crop":
        return cx - int(x + level * w), cy, w
    if family == "in-plane rotation" and level:
        # libvips turns clockwise (y down) about the centre and grows the canvas to the turned image's bounds.
        width, height = size
        t = math.radians(level)
        dx, dy = cx - width / 2, cy - height / 2
        out_w = abs(width * math.cos(t)) + abs(height * math.sin(t))
        out_h = abs(width * math.sin(t)) + abs(height * math.cos(t))
        return out_w / 2 + dx * math.cos(t) - dy * math.sin(t), out_h / 2 + dx * math.sin(t) + dy * math.cos(t), w
    return cx, cy, w


def score(binary, path, centre):
    """Capture quality of the face found nearest `centre` (x, y, face width), 0 when none is within half a
    face width of it: the degraded face, not another one of the picture."""
    r = subprocess.run([binary, "detect", "--quality", "--json", path], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"facecrop detect failed: {r.stderr.strip()}")
    cx, cy, w = centre
    best, distance = 0.0, 0.5 * w
    for f in json.loads(r.stdout)["faces"]:
        box = f["rect"]
        d = math.hypot(box["x"] + box["width"] / 2 - cx, box["y"] + box["height"] / 2 - cy)
        if d <= distance:
            best, distance = f["quality"]["score"], d
    return best


MILD_BLUR = [0, 0.5, 1, 1.5, 2, 3]


def mild_blur(binary, sources, work):
    """[(name, scores by sigma)] under true gaussian blurs of MILD_BLUR, every level as PNG."""
    rows = []
    with ThreadPoolExecutor(2) as pool:
        for n, (src, box) in enumerate(sources):
            outs = [os.path.join(work, f"m{n}-{i}.png") for i in range(len(MILD_BLUR))]
            for out, sigma in zip(outs, MILD_BLUR):
                if sigma == 0:
                    vips("copy", src, out)
                else:
                    blurred = os.path.join(work, "blurred.v")
                    vips("gaussblur", src, blurred, sigma, "--min-ampl", 0.005, "--precision", "float")
                    vips("round", blurred, blurred + ".r.v", "rint")
                    vips("cast", blurred + ".r.v", out, "uchar")
            x, y, w, h = box
            rows.append((src, list(pool.map(lambda o: score(binary, o, (x + w / 2, y + h / 2, w)), outs))))
            for out in outs:
                os.remove(out)
    return rows


def show_mild_blur(title, rows):
    found = [r for r in rows if r[1][0] > 0]
    falls = [all(b < a or b == 0 for a, b in zip(s, s[1:])) for _, s in found]
    rhos = [spearman(MILD_BLUR, s) for _, s in found]
    print(f"{title}: {len(found)} faces, gaussian blur of sigma {', '.join(map(str, MILD_BLUR[1:]))}")
    print(f"  score falls at every step: {sum(falls)} of {len(found)} ({sum(falls) / len(found):.0%}); median rho {median(rhos):.3f}")
    for (src, s), ok in zip(found, falls):
        if not ok or len(found) <= 3:
            print(f"  {'falls' if ok else 'RISES'} {os.path.basename(src)}: {', '.join(f'{x:.4f}' for x in s)}")
    return sum(falls) / len(found)


def faces_dev(root, count, min_height=80):
    """Up to `count` faces-dev photos whose largest face is at least `min_height` px tall, spread over the set."""
    folder = os.path.join(root, "..", "shared", "testdata", "faces-dev")
    try:
        with open(os.path.join(folder, "manifest.json")) as f:
            manifest = json.load(f)
    except OSError:
        return []
    chosen = []
    for e in sorted(manifest, key=lambda e: e["image"]):
        faces = e.get("faces") or []
        if faces and max(f[3] for f in faces) >= min_height:
            chosen.append((os.path.join(folder, e["image"]), tuple(max(faces, key=lambda f: f[2] * f[3]))))
    step = max(1, len(chosen) // count) if count else 1
    return chosen[::step][:count] if count else chosen


def portrait(src, box, out):
    """The region around a face (1.5 face widths to each side, 1 height above, 1.5 below); the face box in it."""
    x, y, w, h = box
    width, height, _ = header(src)
    left, top = max(0, int(x - 1.5 * w)), max(0, int(y - h))
    right, bottom = min(width, int(x + 2.5 * w)), min(height, int(y + 2.5 * h))
    vips("extract_area", src, out, left, top, right - left, bottom - top)
    return out, (x - left, y - top, w, h)


def run_families(binary, sources, work):
    """{family: [(name, scores by level, rho)]} for (path, face box) sources."""
    results = {}
    with ThreadPoolExecutor(2) as pool:
        for n, (src, box) in enumerate(sources):
            size = header(src)[:2]
            for family, levels in FAMILIES.items():
                outs = []
                for i, level in enumerate(levels):
                    out = os.path.join(work, f"s{n}-{family.replace(' ', '_')}-{i}." + ("jpg" if family == "jpeg compression" else "png"))
                    degrade(src, family, level, out, box, work)
                    outs.append(out)
                s = list(pool.map(lambda o, level: score(binary, o, tracked(family, level, size, box)), outs, levels))
                results.setdefault(family, []).append((src, s, spearman(list(range(len(levels))), s), while_found(s)))
                for out in outs:
                    os.remove(out)
    return results


def while_found(scores):
    """rho over the levels before the face is first lost (None with fewer than 3 such levels, or all tied)."""
    found = scores[: scores.index(0.0)] if 0.0 in scores else scores
    return spearman(list(range(len(found))), found) if len(found) >= 3 else None


def mean(values):
    values = [v for v in values if v is not None]
    return sum(values) / len(values) if values else None


def median(values):
    v = sorted(x for x in values if x is not None)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2 if v else None


def family_summary(rows):
    rhos = [r[2] for r in rows]
    defined = [x for x in rhos if x is not None]
    return {
        "rho": mean(rhos), "median": median(rhos), "undefined": len(rhos) - len(defined),
        "shareAtBar": sum(x <= -0.9 for x in defined) / len(defined) if defined else None,
        "rhoWhileFound": mean(r[3] for r in rows),
        "meanScoreByLevel": [sum(r[1][i] for r in rows) / len(rows) for i in range(len(rows[0][1]))],
    }


def show(title, results, count):
    summary = {f: family_summary(rows) for f, rows in results.items()}
    print(f"{title}: {count} images x 6 levels, Spearman rho (bar: mean <= -0.9)")
    print(f"  {'family':18s} {'mean':>6s} {'':6s} {'median':>6s} {'<=-0.9':>6s} {'found':>6s} {'undef':>5s}  mean score by level")
    fmt = lambda x, spec: format(x, spec) if x is not None else "-"
    for family, f in summary.items():
        mark = "ok" if f["rho"] is not None and f["rho"] <= -0.9 else "above"
        levels = ", ".join(f"{x:.2f}" for x in f["meanScoreByLevel"])
        print(f"  {family:18s} {fmt(f['rho'], '6.3f')} {mark:6s} {fmt(f['median'], '6.3f')} {fmt(f['shareAtBar'], '6.0%')} "
              f"{fmt(f['rhoWhileFound'], '6.3f')} {f['undefined']:5d}  {levels}")
    return summary


def ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    r = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(xs, ys):
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx) ** 0.5
    vy = sum((b - my) ** 2 for b in ry) ** 0.5
    return cov / (vx * vy) if vx and vy else None  # undefined when either side is constant


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", default=os.path.join(root, ".build/release/facecrop"))
    p.add_argument("--images", default=os.path.join(root, "Golden"))
    p.add_argument("--json", action="store_true")
    p.add_argument("--faces-dev", type=int, default=0, metavar="N", help="also run on N faces-dev photos")
    p.add_argument("--mild-blur", action="store_true", help="check that a mild blur lowers the score at every step")
    a = p.parse_args()
    # The portraits: one face each, public domain: Grace Hopper, Barack Obama, Eileen Collins (Golden/SOURCES.md).
    shared = os.path.join(root, "..", "shared", "testdata", "public-domain")
    portraits = [os.path.join(shared, n) for n in ("grace_hopper_512x512.jpg", "obama.jpg", "astronaut.png")]
    if not all(os.path.exists(x) for x in portraits):
        portraits = [os.path.join(a.images, "portrait-16x9", "input.jpg"), os.path.join(a.images, "haar-portrait", "input.jpg"),
                     os.path.join(root, "Samples", "portrait.png")]
    sources = []
    for src in portraits:
        r = subprocess.run([a.bin, "detect", "--json", src], capture_output=True, text=True, check=True)
        face = json.loads(r.stdout)["faces"][0]["rect"]
        sources.append((src, (face["x"], face["y"], face["width"], face["height"])))
    if a.mild_blur:
        with tempfile.TemporaryDirectory() as work:
            show_mild_blur("mild blur, public-domain portraits", mild_blur(a.bin, sources, work))
            dev = [portrait(src, box, os.path.join(work, f"dev{n}.png")) for n, (src, box) in enumerate(faces_dev(root, 0, 48))]
            if dev:
                show_mild_blur("mild blur, faces-dev photos (held out)", mild_blur(a.bin, dev, work))
        return
    dev = faces_dev(root, a.faces_dev) if a.faces_dev else []
    with tempfile.TemporaryDirectory() as work:
        sets = {"public-domain portraits": (run_families(a.bin, sources, work), len(sources))}
        # Each photo cut down to a portrait of its largest face, so the image's best face is the degraded one.
        dev = [portrait(src, box, os.path.join(work, f"dev{n}.png")) for n, (src, box) in enumerate(dev)]
        if dev:
            sets["faces-dev photos (held out)"] = (run_families(a.bin, dev, work), len(dev))
    if a.json:
        print(json.dumps({title: {f: dict(family_summary(rows), scores={r[0]: r[1] for r in rows})
                                  for f, rows in res.items()} for title, (res, _) in sets.items()}, indent=2))
        return
    ok = True
    for title, (res, count) in sets.items():
        summary = show(f"capture quality under degradation, {title}", res, count)
        ok = ok and all(f["rho"] is not None and f["rho"] <= -0.9 for f in summary.values())
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
