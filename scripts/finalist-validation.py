#!/usr/bin/env python3
"""How often best-frame's screen keeps the frame that scoring every frame in full would choose.

For each faces-dev photo with faces (../shared/testdata/faces-dev, skipped cleanly when absent), a 2-second
1280x720 clip at 30 fps: twelve slots of 5 frames, each slot the photo with its own seeded mix of gaussian
blur (sigma 0 to 3), grain and under-exposure. Then, per clip:
  best-frame clip                         the default: every frame screened, 3 finalists scored in full
  best-frame clip --finalists 12          every sampled frame scored in full
and, with --every-frame, the same pair over all 60 frames (--finalists 900 for the full run). The full run's
frame scores are the reference: a screened choice agrees when it falls in the slot of the full run's choice
(the frames of a slot differ only by their grain), and its regret is the full run's best frame score minus the
full run's score of the frame the screen chose.

Usage: scripts/finalist-validation.py [--bin PATH] [--clips N] [--every-frame] [--seed S] [--finalists K]
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEV = os.path.join(ROOT, "..", "shared", "testdata", "faces-dev")


def make_clip(image, path, rng):
    """Twelve 5-frame slots of `image` letterboxed in 1280x720, each degraded its own way."""
    slots = []
    for _ in range(12):
        blur = rng.choice([0, 0.5, 1, 1.5, 2, 3])
        grain = rng.choice([0, 0, 6, 15])
        light = rng.choice([1, 1, 1, 0.6, 0.35])
        f = []
        if blur:
            f.append(f"gblur=sigma={blur}:steps=6")
        if grain:
            f.append(f"noise=alls={grain}:allf=t")
        if light != 1:
            f.append(f"lutyuv=y=val*{light}")
        slots.append(",".join(f) or "null")
    fit = "scale=1280:720:force_original_aspect_ratio=decrease,pad=1280:720:(ow-iw)/2:(oh-ih)/2,setsar=1"
    graph = f"[0:v]{fit},split=12" + "".join(f"[s{i}]" for i in range(12)) + ";"
    for i, s in enumerate(slots):
        graph += f"[s{i}]trim=start_frame={i * 5}:end_frame={i * 5 + 5},setpts=PTS-STARTPTS,{s}[c{i}];"
    graph += "".join(f"[c{i}]" for i in range(12)) + "concat=n=12:v=1:a=0,format=yuv420p[v]"
    subprocess.run(
        ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-loop", "1", "-framerate", "30", "-t", "2",
         "-i", image, "-filter_complex", graph, "-map", "[v]", "-r", "30", "-c:v", "libx264", "-preset", "veryfast",
         "-crf", "18", path], check=True)


def best_frame(binary, clip, args):
    run = subprocess.run([binary, "best-frame", clip, "--no-still", "--json"] + args, capture_output=True, text=True)
    if run.returncode not in (0, 2):
        sys.exit(f"best-frame failed on {clip}: {run.stderr.strip()}")
    return json.loads(run.stdout)


def compare(binary, clip, screened_args, full_args):
    screened = best_frame(binary, clip, screened_args)
    full = best_frame(binary, clip, full_args)
    s, f = screened.get("chosen"), full.get("chosen")
    if f is None:
        return None  # no face for the full run either: nothing to compare
    if s is None:
        return (False, f["score"])
    scores = [fr.get("score") or 0 for fr in full["frames"]]
    slot = lambda t: int(t * 30 + 0.5) // 5  # the 5-frame slot a frame's time falls in
    return (slot(s["time"]) == slot(f["time"]), f["score"] - scores[s["index"]])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", default=os.path.join(ROOT, ".build", "release", "facecrop"))
    p.add_argument("--clips", type=int, default=0, help="at most this many clips (0: one per photo with faces)")
    p.add_argument("--every-frame", action="store_true", help="also compare --every-frame runs")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--finalists", type=int, default=0, help="finalists of the screened runs (0: best-frame's default)")
    a = p.parse_args()
    manifest = os.path.join(DEV, "manifest.json")
    if not os.path.exists(manifest):
        print(f"faces-dev not found ({DEV}): nothing to measure")
        return
    photos = [e for e in json.load(open(manifest)) if e.get("faces")]
    if a.clips:
        photos = photos[: a.clips]
    rng = random.Random(a.seed)
    k = ["--finalists", str(a.finalists)] if a.finalists else []
    modes = [("sampled (12 frames)", k, ["--finalists", "12"])]
    if a.every_frame:
        modes.append(("every frame (60)", ["--every-frame"] + k, ["--every-frame", "--finalists", "900"]))
    results = {name: [] for name, _, _ in modes}
    with tempfile.TemporaryDirectory() as tmp:
        for n, e in enumerate(photos):
            clip = os.path.join(tmp, "clip.mp4")
            make_clip(os.path.join(DEV, e["image"]), clip, rng)
            for name, screened, full in modes:
                r = compare(a.bin, clip, screened, full)
                if r is not None:
                    results[name].append(r)
            print(f"\r{n + 1}/{len(photos)} clips", end="", file=sys.stderr)
    print(file=sys.stderr)
    print(f"{len(photos)} clips from faces-dev photos with faces, seed {a.seed}, {a.finalists or 'default'} finalists; "
          "screened choice against every frame scored in full")
    print(f"{'mode':22} {'clips':>5} {'same slot':>11} {'regret median':>14} {'regret <= 0.01':>15} {'max regret':>11}")
    for name, rows in results.items():
        if not rows:
            continue
        regrets = [r for _, r in rows]
        same = sum(1 for ok, _ in rows if ok)
        print(f"{name:22} {len(rows):5} {same / len(rows):11.2f} {statistics.median(regrets):14.4f} "
              f"{sum(1 for r in regrets if r <= 0.01) / len(rows):15.2f} {max(regrets):11.4f}")


if __name__ == "__main__":
    main()
