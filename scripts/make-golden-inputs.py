#!/usr/bin/env python3
"""Regenerate the golden-test inputs (Golden/<case>/) and the demo samples (Samples/) of facecrop.

    python3 scripts/make-golden-inputs.py        # rewrites everything in place

Needs only pyvips (binding the system libvips) and numpy. Deterministic: every random background uses
a fixed seed, and no step depends on time or on the machine. Sources are the public-domain portraits in
../shared/testdata/public-domain (override with FACECROP_PUBLIC_DOMAIN=/path); see Golden/SOURCES.md.

For every case it writes
    Golden/<case>/input.<ext>   the picture handed to facecrop
    Golden/<case>/case.json     {"args": [...], "output": ext, "note": "..."}
    Golden/<case>/truth.json    {"width", "height", "faces": [[x, y, w, h], ...]} in the upright (display)
                                image, pixels, origin top-left: the face boxes we placed.
"""

import json
import math
import os
import shutil
import sys

import numpy as np
import pyvips

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC_DIR = os.environ.get(
    "FACECROP_PUBLIC_DOMAIN",
    os.path.join(os.path.dirname(ROOT), "shared", "testdata", "public-domain"))
GOLDEN = os.path.join(ROOT, "Golden")
SAMPLES = os.path.join(ROOT, "Samples")
JPEG_Q = 85

# Face box [x, y, w, h] in each source portrait (pixels, origin top-left). Found once, at development
# time, with OpenCV's cv2.FaceDetectorYN and ../shared/models/face_detection_yunet_2023mar.onnx (score
# threshold 0.5, one face each, scores 0.93-0.95), rounded to whole pixels and checked by eye on a
# drawing of the box: each runs from the forehead just above the brows to the bottom of the chin, and
# from cheek to cheek. OpenCV is NOT needed to run this script.
SOURCES = {
    "grace": ("grace_hopper_512x512.jpg", (183, 104, 168, 215)),  # 512x512, U.S. Navy
    "astronaut": ("astronaut.png", (178, 63, 90, 113)),           # 512x512, NASA (Eileen Collins)
    "obama": ("obama.jpg", (126, 71, 219, 311)),                  # 461x599, White House
}


# ----------------------------------------------------------------------------------------------------
# numpy <-> vips

def to_np(img):
    img = img.cast("uchar") if img.format != "uchar" else img
    return np.ndarray(buffer=img.write_to_memory(), dtype=np.uint8,
                      shape=(img.height, img.width, img.bands)).astype(np.float32)


def from_np(arr, interpretation=None):
    a = np.ascontiguousarray(np.clip(np.rint(arr), 0, 255).astype(np.uint8))
    if a.ndim == 2:
        a = a[:, :, None]
    h, w, b = a.shape
    img = pyvips.Image.new_from_memory(a.tobytes(), w, h, b, "uchar")
    if interpretation is None:
        interpretation = {1: "b-w", 2: "b-w", 3: "srgb", 4: "srgb"}[b]
    return img.copy(interpretation=interpretation)


def to_np_float(img):
    """Float image (any band count) to a float32 numpy array without rounding."""
    img = img.cast("float")
    return np.ndarray(buffer=img.write_to_memory(), dtype=np.float32,
                      shape=(img.height, img.width, img.bands)).copy()


def from_np_float(arr):
    a = np.ascontiguousarray(arr.astype(np.float32))
    h, w, b = a.shape
    return pyvips.Image.new_from_memory(a.tobytes(), w, h, b, "float")


def load_source(name):
    fname, box = SOURCES[name]
    img = pyvips.Image.new_from_file(os.path.join(SRC_DIR, fname), access="sequential")
    img = img.colourspace("srgb")
    if img.hasalpha():
        img = img.flatten()
    return to_np(img)[:, :, :3], box


# ----------------------------------------------------------------------------------------------------
# backgrounds (our own, generated)

def smooth_noise(w, h, rng, cell, bands=3):
    """Low-frequency noise: a coarse random grid upsampled with a smooth kernel, then blurred."""
    gw, gh = w // cell + 3, h // cell + 3
    grid = rng.standard_normal((gh, gw, bands)).astype(np.float32)
    img = from_np_float(grid).resize(cell, kernel="cubic").gaussblur(cell / 3.0)
    return to_np_float(img)[:h, :w, :]


def background(w, h, seed, c0, c1, noise=18.0, cell=96, grain=1.5):
    """Soft diagonal gradient from colour c0 (top-left) to c1 (bottom-right) plus blurred noise."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    t = (xx / w * 0.6 + yy / h * 0.4)[:, :, None]
    base = np.asarray(c0, np.float32) * (1 - t) + np.asarray(c1, np.float32) * t
    n = smooth_noise(w, h, rng, cell)
    n = n / (np.abs(n).max() + 1e-6)
    lum = n.mean(axis=2, keepdims=True)
    out = base + noise * (0.7 * lum + 0.3 * n)
    out += grain * rng.standard_normal((h, w, 1)).astype(np.float32)
    return np.clip(out, 0, 255)


# ----------------------------------------------------------------------------------------------------
# portrait tiles

class Tile:
    """A premultiplied RGB patch with alpha in [0, 1] and the face box it holds (tile coordinates)."""

    def __init__(self, prem, alpha, face):
        self.prem, self.alpha, self.face = prem, alpha, face

    @property
    def size(self):
        return self.alpha.shape[1], self.alpha.shape[0]


def rect_feather(w, h, f):
    """Alpha of a w x h rectangle whose edges fade to 0 over f pixels (smoothstep)."""
    x = np.arange(w, dtype=np.float32) + 0.5
    y = np.arange(h, dtype=np.float32) + 0.5
    ax = np.clip(np.minimum(x, w - x) / f, 0, 1)
    ay = np.clip(np.minimum(y, h - y) / f, 0, 1)
    a = np.minimum(ay[:, None], ax[None, :])
    return a * a * (3 - 2 * a)


def ellipse_alpha(w, h, cx, cy, rx, ry, soft=2.0):
    """Alpha 1 inside the ellipse, 0 outside, with a ~soft-pixel anti-aliased edge."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float32) + 0.5
    d = np.sqrt(((x - cx) / rx) ** 2 + ((y - cy) / ry) ** 2)
    edge = soft / min(rx, ry)
    return np.clip((1 - d) / edge + 0.5, 0, 1)


def scaled_source(name, face_h, flip=False):
    """The whole source portrait scaled so that its face box is face_h pixels tall."""
    rgb, (fx, fy, fw, fh) = load_source(name)
    s = face_h / fh
    img = from_np(rgb).resize(s, kernel="lanczos3")
    sx = img.width / rgb.shape[1]  # the exact scale vips used for each axis
    sy = img.height / rgb.shape[0]
    face = [fx * sx, fy * sy, fw * sx, fh * sy]
    if flip:
        img = img.fliphor()
        face[0] = img.width - face[0] - face[2]
    return to_np(img), face


def make_tile(name, face_h, expand=(0.7, 0.6, 0.7, 0.9), feather=10, flip=False):
    """Cut a rectangle around the face (expand = left, top, right, bottom context as fractions of the
    face width/height), clamped to the portrait, with feathered edges."""
    rgb, (fx, fy, fw, fh) = scaled_source(name, face_h, flip)
    H, W = rgb.shape[:2]
    l, t, r, b = expand
    x0 = max(0, int(math.floor(fx - l * fw)))
    y0 = max(0, int(math.floor(fy - t * fh)))
    x1 = min(W, int(math.ceil(fx + fw + r * fw)))
    y1 = min(H, int(math.ceil(fy + fh + b * fh)))
    patch = rgb[y0:y1, x0:x1]
    alpha = rect_feather(x1 - x0, y1 - y0, feather)
    return Tile(patch * alpha[:, :, None], alpha, [fx - x0, fy - y0, fw, fh])


def rotate_tile(tile, angle):
    """Rotate a tile by angle degrees, CLOCKWISE on screen (libvips' rotate convention, y down).
    The face box is carried through the very same resampling as a mask band, and the new face box is
    the axis-aligned bounding box of the rotated face rectangle (mask >= 0.5)."""
    h, w = tile.alpha.shape
    x, y, fw, fh = tile.face
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32) + 0.5
    # Area coverage of the (sub-pixel) face rectangle per pixel, so the mask edges sit where the box does.
    cov_x = np.clip(np.minimum(xx + 0.5, x + fw) - np.maximum(xx - 0.5, x), 0, 1)
    cov_y = np.clip(np.minimum(yy + 0.5, y + fh) - np.maximum(yy - 0.5, y), 0, 1)
    mask = cov_x * cov_y
    stack = np.dstack([tile.prem, tile.alpha[:, :, None] * 255.0, mask[:, :, None] * 255.0])
    img = from_np_float(stack).rotate(angle, interpolate=pyvips.Interpolate.new("bilinear"),
                                      background=[0, 0, 0, 0, 0])
    out = to_np_float(img)
    m = out[:, :, 4] / 255.0
    ys, xs = np.nonzero(m >= 0.5)
    face = [float(xs.min()), float(ys.min()), float(xs.max() + 1 - xs.min()), float(ys.max() + 1 - ys.min())]
    return Tile(out[:, :, :3], np.clip(out[:, :, 3] / 255.0, 0, 1), face)


def paste(canvas, tile, face_cx, face_cy):
    """Composite tile onto canvas (in place) so that its face centre lands at (face_cx, face_cy);
    return the face box in canvas coordinates, clipped to the canvas."""
    H, W = canvas.shape[:2]
    tw, th = tile.size
    fx, fy, fw, fh = tile.face
    ox = int(round(face_cx - (fx + fw / 2)))
    oy = int(round(face_cy - (fy + fh / 2)))
    cx0, cy0 = max(0, ox), max(0, oy)
    cx1, cy1 = min(W, ox + tw), min(H, oy + th)
    tx0, ty0 = cx0 - ox, cy0 - oy
    a = tile.alpha[ty0:ty0 + cy1 - cy0, tx0:tx0 + cx1 - cx0, None]
    p = tile.prem[ty0:ty0 + cy1 - cy0, tx0:tx0 + cx1 - cx0]
    region = canvas[cy0:cy1, cx0:cx1]
    canvas[cy0:cy1, cx0:cx1] = p + region * (1 - a)
    return clip_box([fx + ox, fy + oy, fw, fh], W, H)


def clip_box(box, W, H):
    x, y, w, h = box
    x0, y0 = max(0.0, x), max(0.0, y)
    x1, y1 = min(float(W), x + w), min(float(H), y + h)
    return [x0, y0, x1 - x0, y1 - y0]


def int_box(box):
    x, y, w, h = box
    x0, y0, x1, y1 = round(x), round(y), round(x + w), round(y + h)
    return [int(x0), int(y0), int(x1 - x0), int(y1 - y0)]


def scale_box(box, sx, sy):
    x, y, w, h = box
    return [x * sx, y * sy, w * sx, h * sy]


# ----------------------------------------------------------------------------------------------------
# writing

def save(arr_or_img, path, **kw):
    img = arr_or_img if isinstance(arr_or_img, pyvips.Image) else from_np(arr_or_img)
    ext = os.path.splitext(path)[1].lower()
    if ext in (".jpg", ".jpeg"):
        opts = dict(Q=JPEG_Q, strip=True, optimize_coding=True)
    elif ext == ".png":
        opts = dict(compression=9, strip=True)
    else:
        opts = dict(strip=True)
    opts.update(kw)
    img.write_to_file(path, **opts)


def write_case(case, args, output, note, faces, size, write_input):
    d = os.path.join(GOLDEN, case)
    os.makedirs(d, exist_ok=True)
    # Only our own files are replaced; anything else in the folder (e.g. expected outputs written by the
    # test tooling) is left alone.
    for old in os.listdir(d):
        if old.startswith("input."):
            os.remove(os.path.join(d, old))
    write_input(d)
    w, h = size
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump({"args": args, "output": output, "note": note}, f, indent=2)
        f.write("\n")
    truth = {"width": w, "height": h, "faces": [int_box(b) for b in faces]}
    with open(os.path.join(d, "truth.json"), "w") as f:
        f.write(json.dumps(truth) + "\n")
    print(f"  {case:22s} {w}x{h}  faces={truth['faces']}")


def copy_source(name, dest_dir, ext):
    shutil.copyfile(os.path.join(SRC_DIR, SOURCES[name][0]), os.path.join(dest_dir, "input." + ext))


# ----------------------------------------------------------------------------------------------------
# pictures

def group_three():
    """1600x900: Grace Hopper, Eileen Collins and Barack Obama, well apart, faces 160-215 px tall."""
    W, H = 1600, 900
    canvas = background(W, H, seed=101, c0=(92, 118, 150), c1=(196, 178, 150))
    faces = [
        paste(canvas, make_tile("grace", 200), 330, 400),
        paste(canvas, make_tile("astronaut", 165), 800, 360),
        paste(canvas, make_tile("obama", 215), 1290, 430),
    ]
    return canvas, faces


def group_largest():
    """1200x800: Obama's face 260 px tall, Hopper's and Collins' 70 px tall."""
    W, H = 1200, 800
    canvas = background(W, H, seed=202, c0=(170, 186, 170), c1=(96, 110, 128))
    faces = [
        paste(canvas, make_tile("obama", 260), 380, 390),
        paste(canvas, make_tile("grace", 70, feather=5), 900, 230),
        paste(canvas, make_tile("astronaut", 70, feather=5), 980, 580),
    ]
    return canvas, faces


def border_face():
    """1000x700: Hopper's face (240 px) whose box starts at x = 0."""
    W, H = 1000, 700
    canvas = background(W, H, seed=303, c0=(150, 170, 190), c1=(120, 100, 90))
    tile = make_tile("grace", 240, expand=(0.3, 0.6, 0.8, 0.9))
    fx, fy, fw, fh = tile.face
    face = paste(canvas, tile, fw / 2, 330)  # face centre at half a face width: box x = 0
    return canvas, [face]


def rotated_faces():
    """1400x700: three faces rotated -25 (Collins), +20 (Hopper), +35 (Obama) degrees, clockwise positive."""
    W, H = 1400, 700
    canvas = background(W, H, seed=404, c0=(205, 196, 170), c1=(110, 130, 150))
    ex = (0.5, 0.45, 0.5, 0.6)
    faces = [
        paste(canvas, rotate_tile(make_tile("astronaut", 170, ex), -25), 260, 350),
        paste(canvas, rotate_tile(make_tile("grace", 170, ex), 20), 700, 340),
        paste(canvas, rotate_tile(make_tile("obama", 175, ex), 35), 1140, 360),
    ]
    return canvas, faces


def no_face(seed, attention):
    """800x600 abstract picture: gradients, soft noise, a few straight-edged shapes (no circles, so
    nothing pairs up like eyes). With attention=True, one bright, saturated, detailed patch off centre
    (to the right), for libvips' attention strategy to find."""
    W, H = 800, 600
    rng = np.random.default_rng(seed)
    canvas = background(W, H, seed=seed, c0=(70, 90, 120), c1=(120, 140, 110), noise=25, cell=128)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    # a diagonal band
    band = np.abs((xx - 0.8 * yy) - 150) < 40
    canvas[band] = canvas[band] * 0.75 + np.array([150, 130, 90], np.float32) * 0.25
    # a few muted rectangles and a triangle
    for (x0, y0, x1, y1, col) in [(60, 380, 240, 540, (90, 100, 80)), (430, 80, 520, 260, (140, 120, 110)),
                                  (300, 420, 480, 470, (60, 70, 95))]:
        canvas[y0:y1, x0:x1] = canvas[y0:y1, x0:x1] * 0.5 + np.array(col, np.float32) * 0.5
    tri = (yy > 60) & (yy < 220) & (xx > 90) & (xx < 90 + (yy - 60) * 1.2)
    canvas[tri] = canvas[tri] * 0.6 + np.array([100, 120, 140], np.float32) * 0.4
    if attention:
        # bright, saturated, high-detail region centred at (690, 300): stripes + checker + colour noise
        x0, y0, x1, y1 = 600, 200, 780, 400
        sub_y, sub_x = yy[y0:y1, x0:x1], xx[y0:y1, x0:x1]
        stripes = (np.sin(sub_x * 0.9 + sub_y * 0.4) > 0).astype(np.float32)
        checker = (((sub_x // 6) + (sub_y // 6)) % 2).astype(np.float32)
        patch = np.zeros((y1 - y0, x1 - x0, 3), np.float32)
        patch[..., 0] = 255 * (0.6 + 0.4 * stripes)
        patch[..., 1] = 230 * checker + 20
        patch[..., 2] = 60 + 120 * (1 - stripes)
        patch += rng.uniform(-40, 40, patch.shape).astype(np.float32)
        a = rect_feather(x1 - x0, y1 - y0, 6)[:, :, None]
        canvas[y0:y1, x0:x1] = patch * a + canvas[y0:y1, x0:x1] * (1 - a)
    return np.clip(canvas, 0, 255)


def landscape():
    """1600x900 landscape without people: sky gradient, sun, two ranges of hills, a lake."""
    W, H = 1600, 900
    rng = np.random.default_rng(909)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    t = (yy / H)[:, :, None]
    sky = np.array([70, 120, 190], np.float32) * (1 - t) + np.array([235, 200, 160], np.float32) * t
    canvas = sky + 10 * smooth_noise(W, H, rng, 160)
    sun = np.sqrt((xx - 1180) ** 2 + (yy - 260) ** 2)
    glow = np.clip(1 - sun / 260, 0, 1) ** 2
    canvas += glow[:, :, None] * np.array([60, 40, 10], np.float32)
    disc = np.clip(70 - sun, 0, 1)[:, :, None]
    canvas = canvas * (1 - disc) + disc * np.array([255, 236, 190], np.float32)
    x = np.arange(W, dtype=np.float32)
    for (base, amp, col, seed) in [(520, 90, (95, 110, 120), 1), (640, 60, (55, 90, 60), 2)]:
        r = np.random.default_rng(seed)
        ridge = base + sum(amp / (k + 1) * np.sin(x * (k + 1) * 0.004 + r.uniform(0, 6.28)) for k in range(5))
        mask = yy > ridge[None, :]
        shade = np.array(col, np.float32) * (0.9 + 0.1 * np.clip(smooth_noise(W, H, r, 40, 1), -1, 1))
        canvas[mask] = shade[mask]
    lake = yy > 760
    canvas[lake] = canvas[lake] * 0.4 + np.array([80, 120, 170], np.float32) * 0.6
    canvas += 2.0 * rng.standard_normal((H, W, 1)).astype(np.float32)
    return np.clip(canvas, 0, 255)


# EXIF orientation N: the transform a viewer applies to the STORED pixels to display them upright.
# We store the upright picture transformed by the inverse of that.
def stored_for_orientation(img, n):
    return {
        1: lambda i: i,
        2: lambda i: i.fliphor(),                 # mirror: self-inverse
        3: lambda i: i.rot180(),                  # 180: self-inverse
        4: lambda i: i.flipver(),                 # flip: self-inverse
        5: lambda i: i.rot90().fliphor(),         # transpose: self-inverse
        6: lambda i: i.rot270(),                  # viewer turns 90 clockwise, so store 90 anticlockwise
        7: lambda i: i.rot270().fliphor(),        # transverse: self-inverse
        8: lambda i: i.rot90(),                   # viewer turns 90 anticlockwise, so store 90 clockwise
    }[n](img)


# ----------------------------------------------------------------------------------------------------

def main():
    if not os.path.isdir(SRC_DIR):
        sys.exit(f"public-domain sources not found at {SRC_DIR} (set FACECROP_PUBLIC_DOMAIN)")
    os.makedirs(GOLDEN, exist_ok=True)
    os.makedirs(SAMPLES, exist_ok=True)
    print("Golden/")

    grace_box = list(SOURCES["grace"][1])
    obama_box = list(SOURCES["obama"][1])
    astro_box = list(SOURCES["astronaut"][1])

    # 1. portrait as-is
    write_case("portrait-16x9", ["--aspect", "16:9", "--margin", "40%"], "jpg",
               "A single centred portrait cropped to 16:9 with a margin of 40% of the face height.",
               [grace_box], (512, 512), lambda d: copy_source("grace", d, "jpg"))

    # 2-4. the three-face group
    group, gfaces = group_three()
    gh, gw = group.shape[:2]
    for case, args, note in [
        ("group-three-16x9", ["--aspect", "16:9", "--margin", "60"],
         "Three well-separated faces must all be kept in a 16:9 crop with a 60 px margin."),
        ("group-three-1x1-cut", ["--aspect", "1:1", "--margin", "60"],
         "Three faces spread wider than the image is tall cannot fit a square crop, so cut faces must be reported."),
        ("group-average", ["--strategy", "average", "--aspect", "4:5", "--margin", "50"],
         "The average strategy centres a 4:5 crop on the mean face position of three faces."),
    ]:
        write_case(case, args, "jpg", note, gfaces, (gw, gh), lambda d: save(group, os.path.join(d, "input.jpg")))

    # 5. one big face, two small
    big, bfaces = group_largest()
    write_case("group-largest", ["--strategy", "largest", "--aspect", "1:1", "--margin", "30%"], "jpg",
               "The largest strategy crops around the one big face and ignores the two small ones.",
               bfaces, (big.shape[1], big.shape[0]), lambda d: save(big, os.path.join(d, "input.jpg")))

    # 6. face at the left border
    bord, bofaces = border_face()
    write_case("border-face", ["--aspect", "16:9", "--margin", "200"], "jpg",
               "A face touching the left border: the margin is clamped at the image edge instead of failing.",
               bofaces, (bord.shape[1], bord.shape[0]), lambda d: save(bord, os.path.join(d, "input.jpg")))

    # 7. rotated faces
    rot, rfaces = rotated_faces()
    write_case("rotated-faces", ["--aspect", "2:1", "--margin", "40"], "jpg",
               "Three faces tilted by -25, +20 and +35 degrees are still found and kept in a 2:1 crop.",
               rfaces, (rot.shape[1], rot.shape[0]), lambda d: save(rot, os.path.join(d, "input.jpg")))

    # 8-9. no face
    nf = no_face(505, attention=False)
    write_case("no-face-center", ["--aspect", "1:1", "--no-face", "center"], "jpg",
               "A picture without faces falls back to a centred square crop.",
               [], (800, 600), lambda d: save(nf, os.path.join(d, "input.jpg")))
    na = no_face(606, attention=True)
    write_case("no-face-attention", ["--aspect", "1:1", "--no-face", "attention"], "jpg",
               "A picture without faces falls back to libvips attention, which should pull the square crop "
               "to the bright detailed patch on the right.",
               [], (800, 600), lambda d: save(na, os.path.join(d, "input.jpg")))

    # 10. EXIF orientations 1-8: Obama padded to 480x600, stored pre-transformed, tag N
    orgb, _ = load_source("obama")
    pad = from_np(orgb).embed(10, 0, 480, 600, extend="copy")
    upright_face = [obama_box[0] + 10, obama_box[1], obama_box[2], obama_box[3]]
    for n in range(1, 9):
        def write_exif(d, n=n):
            stored = from_np(to_np(stored_for_orientation(pad, n)))  # fresh image: no inherited metadata
            stored = stored.copy()
            stored.set_type(pyvips.GValue.gint_type, "orientation", n)
            stored.write_to_file(os.path.join(d, "input.jpg"), Q=JPEG_Q, strip=False, optimize_coding=True)
        write_case(f"exif-{n}", ["--aspect", "1:1", "--margin", "30%"], "jpg",
                   f"Pixels stored for EXIF orientation {n}; once auto-rotated the crop must equal the "
                   f"upright one (same for exif-1..exif-8).",
                   [upright_face], (480, 600), write_exif)

    # 11. RGBA PNG with a transparent surround
    def png_alpha():
        W, H = 700, 500
        rgb, (fx, fy, fw, fh) = scaled_source("grace", 130)
        cx, cy = fx + fw / 2, fy + fh / 2
        ox, oy = int(round(280 - cx)), int(round(240 - cy))  # face centre at (280, 240)
        canvas = np.zeros((H, W, 3), np.float32)
        sh, sw = rgb.shape[:2]
        x0, y0 = max(0, ox), max(0, oy)
        x1, y1 = min(W, ox + sw), min(H, oy + sh)
        canvas[y0:y1, x0:x1] = rgb[y0 - oy:y1 - oy, x0 - ox:x1 - ox]
        alpha = ellipse_alpha(W, H, 280, 235, 0.82 * fw, 0.88 * fh)
        rgba = np.dstack([canvas * alpha[:, :, None], alpha * 255])  # transparent pixels are (0,0,0,0)
        return rgba, [fx + ox, fy + oy, fw, fh]
    pa, pa_face = png_alpha()
    write_case("png-alpha", ["--aspect", "1:1", "--margin", "50"], "png",
               "An RGBA PNG whose face sits in an opaque ellipse on a transparent surround keeps its alpha.",
               [pa_face], (700, 500), lambda d: save(pa, os.path.join(d, "input.png")))

    # 12. greyscale
    def write_grey(d):
        a, _ = load_source("astronaut")
        from_np(a).colourspace("b-w").write_to_file(os.path.join(d, "input.jpg"), Q=JPEG_Q, strip=True,
                                                    optimize_coding=True)
    write_case("greyscale", ["--aspect", "4:5", "--margin", "25%"], "jpg",
               "A one-band greyscale JPEG (interpretation b-w) is detected and cropped.",
               [astro_box], (512, 512), write_grey)

    # 13. tiny
    grgb, gface = scaled_source("grace", 215 * 96 / 512)  # whole portrait 96 px wide, face ~40 px
    ty0 = 8
    tiny = grgb[ty0:ty0 + 72, 0:96]
    tiny_face = [gface[0], gface[1] - ty0, gface[2], gface[3]]
    assert tiny.shape[:2] == (72, 96), tiny.shape
    write_case("tiny", ["--aspect", "16:9", "--margin", "200"], "jpg",
               "A 96x72 picture with a 40 px face and a margin larger than the image: the crop is clamped "
               "to the image.",
               [tiny_face], (96, 72), lambda d: save(tiny, os.path.join(d, "input.jpg")))

    # 14. group scaled to 1200x675, exact output size, webp
    small = from_np(group).resize(1200 / gw, vscale=675 / gh, kernel="lanczos3")
    assert (small.width, small.height) == (1200, 675)
    sfaces = [scale_box(b, 1200 / gw, 675 / gh) for b in gfaces]
    write_case("size-exact-webp", ["--aspect", "16:9", "--size", "640x360", "--margin", "20%"], "webp",
               "The three-face group cropped to 16:9 and resized to exactly 640x360, written as WebP.",
               sfaces, (1200, 675), lambda d: save(small, os.path.join(d, "input.jpg")))

    # 15. CMYK JPEG
    def write_cmyk(d):
        # 4 bands at full size (no chroma subsampling) would be ~200 KB, so scale 512 -> 384 first.
        g, _ = load_source("grace")
        cm = from_np(g).resize(0.75, kernel="lanczos3").colourspace("cmyk")  # built-in CMYK profile (lcms)
        cm.write_to_file(os.path.join(d, "input.jpg"), Q=JPEG_Q, strip=True, optimize_coding=True)
    write_case("cmyk", ["--aspect", "1:1", "--margin", "25%"], "jpg",
               "A CMYK JPEG is read, cropped and written as a viewable JPEG.",
               [scale_box(grace_box, 0.75, 0.75)], (384, 384), write_cmyk)

    # 16. haar
    write_case("haar-portrait", ["--detector", "haar", "--aspect", "1:1", "--margin", "30%"], "jpg",
               "The Haar cascade detector finds the single frontal face of a portrait.",
               [obama_box], (461, 599), lambda d: copy_source("obama", d, "jpg"))

    # 17. tiff output
    write_case("tiff-output", ["--aspect", "9:16", "--margin", "10%"], "tif",
               "A portrait cropped to a tall 9:16 window and written as TIFF.",
               [grace_box], (512, 512), lambda d: copy_source("grace", d, "jpg"))

    # Picture cases (annotate.json, written by hand) take their input from a crop case above.
    for case, source in [("annotate-group", "group-three-16x9"), ("annotate-exif-6", "exif-6"),
                         ("annotate-min-quality", "group-largest")]:
        d = os.path.join(GOLDEN, case)
        os.makedirs(d, exist_ok=True)
        shutil.copyfile(os.path.join(GOLDEN, source, "input.jpg"), os.path.join(d, "input.jpg"))
        print(f"  {case:22s} input of {source}")

    # Samples/ for `make demo`
    print("Samples/")
    W, H = 2400, 1350
    canvas = background(W, H, seed=707, c0=(120, 150, 175), c1=(215, 200, 175), noise=20, cell=160)
    sample_faces = [
        paste(canvas, make_tile("obama", 330), 520, 640),
        paste(canvas, make_tile("grace", 240), 1150, 560),
        paste(canvas, make_tile("astronaut", 160), 1700, 720),
        paste(canvas, make_tile("grace", 100, flip=True, feather=6), 2150, 420),
    ]
    save(canvas, os.path.join(SAMPLES, "group.jpg"))
    print(f"  group.jpg {W}x{H} faces={[int_box(b) for b in sample_faces]}")
    a, _ = load_source("astronaut")
    # Full 512x512 RGB would be ~790 KB as PNG; a 256-colour palette PNG keeps it well under 400 KB.
    from_np(a).write_to_file(os.path.join(SAMPLES, "portrait.png"), compression=9, strip=True,
                             palette=True, Q=100, dither=1.0)
    print("  portrait.png 512x512")
    save(landscape(), os.path.join(SAMPLES, "landscape-no-face.jpg"))
    print("  landscape-no-face.jpg 1600x900")


if __name__ == "__main__":
    main()
