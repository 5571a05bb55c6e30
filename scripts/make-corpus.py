#!/usr/bin/env python3
"""Generate facecrop's hostile-input corpus: malformed, truncated, odd and dangerous inputs, each with the
outcome facecrop documents for it.

    scripts/make-corpus.py OUTDIR            # writes OUTDIR/<files> and OUTDIR/cases.json

scripts/corpus-table.py turns cases.json into docs/corpus.md, the documented outcome table.

Needs only the python3 standard library and the `vips` and `ffmpeg` commands (Debian libvips-tools and ffmpeg,
installed by scripts/setup.sh). Deterministic: fixed seeds, no clock. The good images are made from Samples/ with vips;
the bad ones are those images cut, patched or wrapped byte by byte here.

cases.json: {"version": 1, "cases": [case, ...]}, each case
    name         unique id (also the file's stem, so a batch over OUTDIR has no output-name clashes)
    file         the entry in OUTDIR or a folder in it (may hold spaces, a newline, non-ASCII, a leading dash, "[...]")
    kind         file | symlink | fifo | directory
    what         what the case is, in words
    command      the subcommand, when not the image crop: "best-frame" for the video cases
    expect       {"status": exit status, "stderr": [lines]} for `facecrop [COMMAND] OUTDIR/FILE -o OUT.jpg`; a line's
                 "{input}" stands for the input path as given on the command line, shown with control
                 characters escaped (a newline as \\n), and "{stem}" for that path without its extension; status
                 0 means a crop was written
    expectAsRoot the same when run as root, where permission bits do not stop reading (only where different)
    batch        whether `facecrop batch OUTDIR` picks the entry up (a non-hidden file with an image
                 extension; folders only with --recursive); if so its record has the same status and error
"""

import gzip
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "Samples")
GOLDEN = os.path.join(ROOT, "Golden")
# Extensions `facecrop batch` collects from a folder (BatchInputs.imageExtensions).
BATCH_EXTENSIONS = {"jpg", "jpeg", "png", "webp", "tif", "tiff", "gif", "heic", "heif", "avif"}
MAX_PIXELS = 268402689          # FaceCropper.defaultMaxPixels
MAX_FILE_SIZE = 512 * 1024 * 1024  # FaceCropper.defaultMaxFileSize
MAX_DECODE_MEMORY = 256 << 20      # FaceCropper.defaultMaxDecodeMemory

# ---------------------------------------------------------------------------------------------- outcomes


def crop(*warnings):
    return {"status": 0, "stderr": list(warnings)}


def error(status, message):
    return {"status": status, "stderr": ["Error: " + message]}


def damaged(detail):
    return error(65, "Input '{input}' is damaged or truncated: %s." % detail)


NOT_AN_IMAGE = error(65, "Input '{input}' is not an image format facecrop can read.")
EMPTY = error(65, "Input '{input}' is empty (0 bytes).")
BLOCKED = error(65, "Input '{input}' needs a libvips loader that is blocked for safety; "
                    "pass --allow-untrusted-loaders if you trust this file.")
NOT_REGULAR = error(66, "Input '{input}' is not a regular file.")
TIFF_HEADER = damaged("it starts like a TIFF file, but its header cannot be read")
DIRECTORY = error(66, "Input '{input}' is a directory, not an image file.")


def too_many_pixels(w, h):
    return error(65, "Input '{input}' is %dx%d (%d pixels), over the limit of %d pixels; "
                     "raise it with --max-pixels if you trust this file." % (w, h, w * h, MAX_PIXELS))


def too_large(size):
    return error(65, "Input '{input}' is %d bytes, over the limit of %d bytes; "
                     "raise it with --max-file-size if you trust this file." % (size, MAX_FILE_SIZE))


def whole_frame(kind, w, h, bytes_per_pixel):
    mib = (w * h * bytes_per_pixel + (1 << 20) - 1) >> 20
    return error(65, "Input '{input}' is %s of %dx%d pixels, which is decoded whole in memory: about %d MiB, over the "
                     "limit of %d MiB; raise it with --max-decode-memory if you trust this file."
                 % (kind, w, h, mib, MAX_DECODE_MEMORY >> 20))


def unreadable(reason):
    return error(66, "Input '{input}' cannot be read: %s." % reason)


# ---------------------------------------------------------------------------------------------- helpers


def vips(*args):
    subprocess.run(["vips", *args], check=True, stdout=subprocess.DEVNULL)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def jpeg_segments(data):
    """(marker, offset of the marker, offset of its payload, payload length) up to and including SOS."""
    out, i = [], 2
    while i + 4 <= len(data):
        assert data[i] == 0xFF, "not at a marker"
        marker = data[i + 1]
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        out.append((marker, i, i + 4, length - 2))
        if marker == 0xDA:
            break
        i += 2 + length
    return out


def jpeg_segment(data, marker):
    return next(s for s in jpeg_segments(data) if s[0] == marker)


def jpeg_scan_start(data):
    _, _, payload, length = jpeg_segment(data, 0xDA)
    return payload + length


def jpeg_with_size(data, width, height):
    """The JPEG with the frame header (SOF0/SOF2) declaring another size."""
    sof = next(s for s in jpeg_segments(data) if s[0] in (0xC0, 0xC2))
    p = sof[2]
    return data[:p + 1] + struct.pack(">HH", height, width) + data[p + 5:]


def gif_with_size(data, width, height):
    """The GIF with its screen and its first frame (image descriptor) declaring another size."""
    out = bytearray(data)
    out[6:10] = struct.pack("<HH", width, height)
    i = 13 + (3 << ((data[10] & 7) + 1) if data[10] & 0x80 else 0)
    while data[i] == 0x21:  # extensions: label, then sub-blocks up to an empty one
        i += 2
        while data[i]:
            i += data[i] + 1
        i += 1
    assert data[i] == 0x2C, "no image descriptor"
    out[i + 5:i + 9] = struct.pack("<HH", width, height)
    return bytes(out)


def png_chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def png_chunks(data):
    out, i = [], 8
    while i + 8 <= len(data):
        length = struct.unpack(">I", data[i:i + 4])[0]
        out.append((data[i + 4:i + 8], i, length))
        i += 12 + length
    return out


def png_with_ihdr(data, width, height):
    """The PNG with IHDR declaring another size (CRC fixed, so only the size is a lie)."""
    kind, off, length = png_chunks(data)[0]
    assert kind == b"IHDR"
    ihdr = struct.pack(">II", width, height) + data[off + 16:off + 8 + length]
    return data[:off] + png_chunk(b"IHDR", ihdr) + data[off + 12 + length:]


def tiff_with_description(data, text):
    """A little-endian single-image TIFF with an ImageDescription tag added: its first IFD copied to the end of
    the file with the tag in order (every offset in it stays valid), the header pointing at the copy."""
    assert data[:4] == b"II*\x00"
    (ifd,) = struct.unpack_from("<I", data, 4)
    (count,) = struct.unpack_from("<H", data, ifd)
    entries = [data[ifd + 2 + 12 * i:ifd + 14 + 12 * i] for i in range(count)]
    (next_ifd,) = struct.unpack_from("<I", data, ifd + 2 + 12 * count)
    value = text.encode() + b"\x00"
    out = bytearray(data) + b"\x00" * (len(data) % 2)
    value_at = len(out)
    out += value + b"\x00" * (len(value) % 2)
    entries.append(struct.pack("<HHII", 270, 2, len(value), value_at))
    entries.sort(key=lambda e: struct.unpack_from("<H", e)[0])
    struct.pack_into("<I", out, 4, len(out))
    out += struct.pack("<H", len(entries)) + b"".join(entries) + struct.pack("<I", next_ifd)
    return bytes(out)


def flip(data, start, count, seed):
    """XOR `count` bytes from `start` with random non-zero values."""
    rng = random.Random(seed)
    b = bytearray(data)
    for i in range(start, min(start + count, len(b))):
        b[i] ^= rng.randrange(1, 256)
    return bytes(b)


def exif_app1(entries, next_ifd=0, ifd_offset=8, count=None):
    """A JPEG APP1 Exif segment holding IFD0 with (tag, type, count, value) SHORT/LONG entries."""
    ifd = struct.pack("<H", len(entries) if count is None else count)
    for tag, typ, n, value in entries:
        ifd += struct.pack("<HHI", tag, typ, n) + (struct.pack("<HH", value, 0) if typ == 3 else struct.pack("<I", value))
    ifd += struct.pack("<I", next_ifd)
    tiff = b"II*\x00" + struct.pack("<I", ifd_offset) + b"\x00" * (ifd_offset - 8) + ifd
    payload = b"Exif\x00\x00" + tiff
    return b"\xFF\xE1" + struct.pack(">H", len(payload) + 2) + payload


def with_app(jpeg, segment):
    """`segment` inserted right after SOI."""
    return jpeg[:2] + segment + jpeg[2:]


# ---------------------------------------------------------------------------------------------- the corpus


class Corpus:
    def __init__(self, outdir, work):
        self.outdir, self.work, self.cases = outdir, work, []

    def w(self, name):
        return os.path.join(self.work, name)

    def add(self, name, file, what, expect, kind="file", data=None, source=None, expect_as_root=None, command=None,
            server_status=None):
        assert expect is not None and all(c["name"] != name for c in self.cases), name
        path = os.path.join(self.outdir, file)
        if kind == "file":
            if source is not None:
                shutil.copyfile(source, path)
            else:
                with open(path, "wb") as f:
                    f.write(data)
        ext = file.rsplit(".", 1)[-1].lower() if "." in file else ""
        case = {
            "name": name, "file": file, "kind": kind, "what": what, "expect": expect,
            "batch": kind != "directory" and not file.startswith(".") and "/" not in file and ext in BATCH_EXTENSIONS,
        }
        if expect_as_root is not None:
            case["expectAsRoot"] = expect_as_root
        if command is not None:
            case["command"] = command
        if server_status is not None:
            case["serverStatus"] = server_status  # facecrop-serve's status where it differs from the CLI's
        self.cases.append(case)
        return path


def make_sources(c):
    """The good images everything else is made from: a 256x256 face (Samples/portrait.png) in each format."""
    w = c.w
    vips("resize", os.path.join(SAMPLES, "portrait.png"), w("face.v"), "0.5")
    vips("jpegsave", w("face.v"), w("face.jpg"), "--Q", "85", "--strip")
    vips("jpegsave", w("face.v"), w("face-progressive.jpg"), "--Q", "85", "--strip", "--interlace")
    vips("pngsave", w("face.v"), w("face.png"))
    vips("webpsave", w("face.v"), w("face.webp"), "--Q", "80")
    vips("webpsave", w("face.v"), w("face-lossless.webp"), "--lossless")
    vips("heifsave", w("face.v"), w("face.heic"), "--compression", "hevc", "--Q", "60")
    vips("heifsave", w("face.v"), w("face.avif"), "--compression", "av1", "--Q", "60")
    vips("tiffsave", w("face.v"), w("face.tif"))
    vips("gifsave", w("face.v"), w("face.gif"))


def build(c):
    w = c.w
    make_sources(c)
    face = {k: read(w("face." + k)) for k in ("jpg", "png", "webp", "heic", "avif", "tif", "gif")}
    jpg, png, webp, heic, tif, gif = face["jpg"], face["png"], face["webp"], face["heic"], face["tif"], face["gif"]
    progressive = read(w("face-progressive.jpg"))

    # --- good images in every format and layout facecrop reads: a crop each -------------------------------
    c.add("jpeg", "jpeg.jpg", "baseline JPEG", crop(), data=jpg)
    c.add("jpeg-progressive", "jpeg-progressive.jpg", "progressive JPEG", crop(), data=progressive)
    c.add("jpeg-cmyk", "jpeg-cmyk.jpg", "CMYK JPEG (Golden/cmyk)", crop(),
          source=os.path.join(GOLDEN, "cmyk", "input.jpg"))
    cmyk = read(os.path.join(GOLDEN, "cmyk", "input.jpg"))
    cmyk_no_icc = cmyk
    for marker, start, payload, length in reversed(jpeg_segments(cmyk)):
        if marker == 0xE2:
            cmyk_no_icc = cmyk_no_icc[:start] + cmyk_no_icc[payload + length:]
    garbage_icc = b"ICC_PROFILE\x00\x01\x01" + bytes(random.Random(7).randrange(256) for _ in range(600))
    c.add("jpeg-cmyk-bad-icc", "jpeg-cmyk-bad-icc.jpg", "CMYK JPEG whose ICC profile is 600 random bytes", crop(),
          data=with_app(cmyk_no_icc, b"\xFF\xE2" + struct.pack(">H", len(garbage_icc) + 2) + garbage_icc))
    c.add("png", "png.png", "8-bit RGB PNG", crop(), data=png)
    vips("colourspace", w("face.v"), w("rgb16.v"), "rgb16")
    vips("pngsave", w("rgb16.v"), w("png16.png"))
    c.add("png-16bit", "png-16bit.png", "16-bit RGB PNG", crop(), source=w("png16.png"))
    vips("pngsave", w("face.v"), w("palette.png"), "--palette")
    c.add("png-palette", "png-palette.png", "palette (indexed) PNG", crop(), source=w("palette.png"))
    vips("colourspace", w("face.v"), w("grey.v"), "b-w")
    vips("bandjoin_const", w("grey.v"), w("grey-alpha.v"), "200")
    vips("pngsave", w("grey-alpha.v"), w("grey-alpha.png"))
    c.add("png-grey-alpha", "png-grey-alpha.png", "grey + alpha PNG", crop(), source=w("grey-alpha.png"))
    c.add("webp", "webp.webp", "lossy WebP", crop(), data=webp)
    c.add("webp-lossless", "webp-lossless.webp", "lossless WebP", crop(), source=w("face-lossless.webp"))
    c.add("heic", "heic.heic", "HEIC (HEVC in HEIF)", crop(), data=heic)
    c.add("avif", "avif.avif", "AVIF (AV1 in HEIF)", crop(), data=face["avif"])
    c.add("tiff", "tiff.tif", "8-bit RGB TIFF", crop(), data=tif)
    vips("tiffsave", w("rgb16.v"), w("tiff16.tif"))
    c.add("tiff-16bit", "tiff-16bit.tif", "16-bit RGB TIFF", crop(), source=w("tiff16.tif"))
    vips("cast", w("face.v"), w("float.v"), "float")
    vips("tiffsave", w("float.v"), w("float.tif"))
    c.add("tiff-float", "tiff-float.tif", "32-bit float TIFF, values 0...255", crop(), source=w("float.tif"))
    vips("colourspace", w("face.v"), w("scrgb.v"), "scrgb")
    vips("tiffsave", w("scrgb.v"), w("scrgb.tif"))
    c.add("tiff-float-linear", "tiff-float-linear.tif", "32-bit float linear-light (scRGB) TIFF, values 0...1",
          crop(), source=w("scrgb.tif"))
    vips("icc_export", w("face.v"), w("cmyk.v"), "--output-profile", "cmyk")
    vips("tiffsave", w("cmyk.v"), w("cmyk.tif"))
    c.add("tiff-cmyk", "tiff-cmyk.tif", "CMYK TIFF", crop(), source=w("cmyk.tif"))
    vips("tiffsave", w("face.v"), w("tiled.tif"), "--tile", "--tile-width", "64", "--tile-height", "64",
         "--compression", "lzw")
    c.add("tiff-tiled-lzw", "tiff-tiled-lzw.tif", "tiled, LZW-compressed TIFF", crop(), source=w("tiled.tif"))
    vips("relational_const", w("grey.v"), w("bilevel.v"), "moreeq", "128")
    vips("tiffsave", w("bilevel.v"), w("bilevel.tif"), "--bitdepth", "1")
    c.add("tiff-1bit", "tiff-1bit.tif", "1-bit bilevel TIFF", crop(), source=w("bilevel.tif"))
    vips("bandjoin", "%s %s" % (w("face.v"), w("grey-alpha.v")), w("five.v"))
    vips("tiffsave", w("five.v"), w("five.tif"))
    c.add("tiff-5band", "tiff-5band.tif", "5-band TIFF (RGB + 2 extra bands)", crop(), source=w("five.tif"))
    vips("flip", w("face.v"), w("flipped.v"), "horizontal")
    vips("join", w("face.v"), w("flipped.v"), w("pages.v"), "vertical")
    vips("tiffsave", w("pages.v"), w("pages.tif"), "--page-height", "256")
    c.add("tiff-multipage", "tiff-multipage.tif", "2-page TIFF (the first page is used)", crop(), source=w("pages.tif"))
    c.add("gif", "gif.gif", "GIF", crop(), data=gif)
    vips("gifsave", w("pages.v"), w("animated.gif"), "--page-height", "256")
    c.add("gif-animated", "gif-animated.gif", "animated GIF, 2 frames (the first is used)", crop(),
          source=w("animated.gif"))
    vips("webpsave", w("pages.v"), w("animated.webp"), "--page-height", "256")
    c.add("webp-animated", "webp-animated.webp", "animated WebP, 2 frames (the first is used)", crop(),
          source=w("animated.webp"))
    vips("black", w("black1.v"), "1", "1", "--bands", "3")
    vips("pngsave", w("black1.v"), w("1x1.png"))
    vips("jpegsave", w("black1.v"), w("1x1.jpg"))
    c.add("tiny-1x1-png", "tiny-1x1-png.png", "1x1 PNG", crop(), source=w("1x1.png"))
    c.add("tiny-1x1-jpeg", "tiny-1x1-jpeg.jpg", "1x1 JPEG", crop(), source=w("1x1.jpg"))
    vips("black", w("tall.v"), "1", "100000")
    vips("pngsave", w("tall.v"), w("tall.png"))
    c.add("tall-1x100000", "tall-1x100000.png", "1x100000 PNG", crop(), source=w("tall.png"))
    vips("black", w("wide.v"), "100000", "1")
    vips("pngsave", w("wide.v"), w("wide.png"))
    c.add("wide-100000x1", "wide-100000x1.png", "100000x1 PNG", crop(), source=w("wide.png"))

    # --- EXIF: valid, invalid and hostile orientation data ------------------------------------------------
    def orient(value):
        return exif_app1([(0x0112, 3, 1, value)])

    c.add("exif-orientation-6", "exif-orientation-6.jpg", "EXIF orientation 6 (valid: turned upright)", crop(),
          data=with_app(jpg, orient(6)))
    for value in (0, 9, 65535):
        c.add("exif-orientation-%d" % value, "exif-orientation-%d.jpg" % value,
              "EXIF orientation %d (invalid: taken as 1)" % value, crop(), data=with_app(jpg, orient(value)))
    c.add("exif-ifd-loop", "exif-ifd-loop.jpg", "EXIF IFD0 whose next-IFD link points back at itself", crop(),
          data=with_app(jpg, exif_app1([(0x0112, 3, 1, 6)], next_ifd=8)))
    c.add("exif-ifd-count-65535", "exif-ifd-count-65535.jpg", "EXIF IFD0 claiming 65535 entries in 30 bytes",
          crop(), data=with_app(jpg, exif_app1([(0x0112, 3, 1, 6)], count=65535)))
    c.add("exif-offset-outside", "exif-offset-outside.jpg", "EXIF IFD0 offset far past the segment's end", crop(),
          data=with_app(jpg, b"\xFF\xE1\x00\x10Exif\x00\x00II*\x00\xFF\xFF\xFF\x7F"))
    c.add("exif-truncated", "exif-truncated.jpg", "Exif segment cut inside its TIFF header", crop(),
          data=with_app(jpg, b"\xFF\xE1\x00\x0AExif\x00\x00II"))

    # --- the right bytes under the wrong name ----------------------------------------------------------
    c.add("png-named-jpg", "png-named-jpg.jpg", "a PNG named .jpg (the content decides)", crop(), data=png)
    c.add("jpeg-named-png", "jpeg-named-png.png", "a JPEG named .png", crop(), data=jpg)
    c.add("heic-named-jpg", "heic-named-jpg.jpg", "a HEIC named .jpg", crop(), data=heic)
    c.add("webp-named-tif", "webp-named-tif.tif", "a WebP named .tif", crop(), data=webp)

    # --- file names -----------------------------------------------------------------------------------
    c.add("name-spaces", "name with  spaces .jpg", "spaces in the name", crop(), data=jpg)
    c.add("name-unicode", "name-ünïcødé-名前-🙂.jpg", "non-ASCII UTF-8 name", crop(), data=jpg)
    c.add("name-newline", "name-new\nline.jpg", "a newline in the name", crop(), data=jpg)
    c.add("name-newline-truncated", "name-new\nline-truncated.jpg",
          "a newline in the name of a truncated JPEG: the error line shows it as \\n",
          damaged("Premature end of input file"), data=jpg[:len(jpg) // 2])
    c.add("name-leading-dash", "-name-leading-dash.jpg", "a name starting with '-' (pass it after '--' or as ./-name)",
          crop(), data=jpg)
    c.add("name-load-options", "name-load-options.jpg[shrink=8]",
          "a name ending in [...] (libvips' load-option syntax): read as a name", crop(), data=jpg)
    c.add("name-load-options-truncated", "name-load-options-truncated.jpg[fail_on=none]",
          "a truncated JPEG named ...[fail_on=none]: the options are not applied, so it still fails",
          damaged("Premature end of input file"), data=jpg[:len(jpg) // 2])

    # --- not images ------------------------------------------------------------------------------------
    c.add("empty", "empty.jpg", "0 bytes", EMPTY, data=b"")
    c.add("text", "text.jpg", "a line of text named .jpg", NOT_AN_IMAGE, data=b"This is not a picture.\n")
    c.add("random", "random.jpg", "4096 random bytes",
          NOT_AN_IMAGE, data=bytes(random.Random(1).randrange(256) for _ in range(4096)))
    c.add("zeros", "zeros.png", "4096 zero bytes", NOT_AN_IMAGE, data=b"\x00" * 4096)
    c.add("html", "html.jpg", "an HTML error page saved as .jpg (a failed download)", NOT_AN_IMAGE,
          data=b"<!DOCTYPE html><html><body><h1>404 Not Found</h1></body></html>\n")
    c.add("gzip", "gzip.png", "gzip data named .png", NOT_AN_IMAGE, data=gzip.compress(png, mtime=0))
    c.add("ppm", "ppm.jpg", "a PPM (netpbm, an untrusted libvips loader) named .jpg", BLOCKED,
          data=b"P6\n2 2\n255\n" + b"\x80" * 12)
    c.add("matrix-text", "matrix-text.jpg", "text libvips' matrix loader (untrusted) would read", BLOCKED,
          data=b"2 2\n1 2\n3 4\n")
    vips("copy", w("face.v"), w("native.v"))
    c.add("vips-native", "vips-native.jpg", "libvips' own .v format (untrusted loader) named .jpg", BLOCKED,
          source=w("native.v"))
    vips("radsave", w("face.v"), w("face.hdr"))
    c.add("radiance", "radiance.jpg", "a Radiance HDR image named .jpg (a loader facecrop does not trust)", BLOCKED,
          source=w("face.hdr"))
    vips("jxlsave", w("face.v"), w("face.jxl"))
    c.add("jpeg-xl", "jpeg-xl.jpg", "a JPEG XL image named .jpg (a loader facecrop does not trust)", BLOCKED,
          source=w("face.jxl"))
    vips("tiffsave", w("face.v"), w("tiled.tif"), "--tile", "--tile-width", "64", "--tile-height", "64",
         "--compression", "jpeg")
    c.add("slide-scan", "slide-scan.tif", "a tiled TIFF described as an Aperio slide scan (OpenSlide's loader, "
          "untrusted, claims it before libvips' TIFF loader; it knows files only, so facecrop-serve, which reads bytes, "
          "crops it as a TIFF)", BLOCKED, server_status=200,
          data=tiff_with_description(read(w("tiled.tif")), "Aperio Image Library v10.0.50\r\n"
                                     "128x128 [0,0 128x128] (64x64) JPEG/RGB Q=75|AppMag = 20|MPP = 0.4990"))
    c.add("svg", "svg.svg", "an SVG (not an extension batch collects)", BLOCKED,
          data=b'<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="red"/></svg>\n')

    # --- truncated: every format, at several offsets -----------------------------------------------------
    scan = jpeg_scan_start(jpg)
    for name, data in [
        ("jpeg-cut-2", jpg[:2]),                    # SOI only
        ("jpeg-cut-in-header", jpg[:11]),           # inside APP0/DQT
        ("jpeg-cut-before-scan", jpg[:scan]),       # every header, no entropy data
        ("jpeg-cut-scan-start", jpg[:scan + 16]),
        ("jpeg-cut-half", jpg[:len(jpg) // 2]),
        ("jpeg-cut-no-eoi", jpg[:-2]),              # all data, only the end marker missing
        ("jpeg-progressive-cut-half", progressive[:len(progressive) // 2]),
    ]:
        c.add(name, name + ".jpg", "JPEG cut to %d of %d bytes" % (len(data), len(jpg)), damaged("Premature end of input file"),
              data=data)
    chunks = png_chunks(png)
    idat = next(ch for ch in chunks if ch[0] == b"IDAT")
    for name, data, expect in [
        ("png-cut-8", png[:8], damaged("not enough data")),  # signature only
        ("png-cut-in-ihdr", png[:20], damaged("not enough data")),
        ("png-cut-after-ihdr", png[:33], damaged("not enough data")),
        ("png-cut-half", png[:len(png) // 2], damaged("libpng read error")),
        # Every pixel is there; only the end chunk is missing.
        ("png-cut-no-iend", png[:-12], crop()),
    ]:
        c.add(name, name + ".png", "PNG cut to %d of %d bytes" % (len(data), len(png)), expect, data=data)
    for name, data in [("webp-cut-12", webp[:12]), ("webp-cut-30", webp[:30]), ("webp-cut-half", webp[:len(webp) // 2])]:
        c.add(name, name + ".webp", "WebP cut to %d of %d bytes" % (len(data), len(webp)), damaged("unable to parse image"),
              data=data)
    heic_cut = damaged("Invalid input: Unexpected end of file: Extent in iloc box references data outside of file bounds "
                       "(points to file position 424) (2.100)")
    for name, data, expect in [("heic-cut-64", heic[:64], damaged("Invalid input: No 'meta' box (2.104)")),
                               ("heic-cut-half", heic[:len(heic) // 2], heic_cut),
                               ("heic-cut-95pct", heic[:len(heic) * 95 // 100], heic_cut)]:
        c.add(name, name + ".heic", "HEIC cut to %d of %d bytes" % (len(data), len(heic)), expect, data=data)
    c.add("tiff-cut-8", "tiff-cut-8.tif", "TIFF cut to its 8-byte header", TIFF_HEADER, data=tif[:8])
    c.add("tiff-cut-half", "tiff-cut-half.tif", "TIFF cut in half (pixels before the directory: the IFD is gone)",
          TIFF_HEADER, data=tif[:len(tif) // 2])
    c.add("gif-cut-half", "gif-cut-half.gif", "GIF cut in half", damaged("Unexpected end of GIF source data"), data=gif[:len(gif) // 2])

    # --- flipped bytes: in headers -----------------------------------------------------------------------
    sof = jpeg_segment(jpg, 0xC0)
    c.add("jpeg-sof-width-0", "jpeg-sof-width-0.jpg", "JPEG frame header declaring width 0",
          damaged("Empty JPEG image (DNL not supported)"),
          data=jpeg_with_size(jpg, 0, 256))
    c.add("jpeg-sof-components-9", "jpeg-sof-components-9.jpg", "JPEG frame header claiming 9 components",
          damaged("Bogus marker length"),
          data=jpg[:sof[2] + 5] + b"\x09" + jpg[sof[2] + 6:])
    c.add("jpeg-flipped-header", "jpeg-flipped-header.jpg", "JPEG with its quantisation tables' bytes flipped",
          damaged("Bogus DQT index 5"),
          data=flip(jpg, jpeg_segment(jpg, 0xDB)[2], 64, seed=2))
    c.add("jpeg-bad-marker", "jpeg-bad-marker.jpg", "JPEG whose first marker after SOI is 0xFF 0x00",
          damaged("Quantization table 0x00 was not defined"),
          data=jpg[:3] + b"\x00" + jpg[4:])
    ihdr_off = chunks[0][1]
    c.add("png-ihdr-bad-crc", "png-ihdr-bad-crc.png", "PNG whose IHDR width bytes changed (CRC mismatch)",
          damaged("CRC error"),
          data=png[:ihdr_off + 8] + b"\x00\x00\x10\x00" + png[ihdr_off + 12:])
    c.add("png-ihdr-width-0", "png-ihdr-width-0.png", "PNG whose IHDR declares width 0 (CRC correct)",
          damaged("Invalid IHDR data"),
          data=png_with_ihdr(png, 0, 256))
    c.add("png-bad-signature", "png-bad-signature.png", "PNG with a flipped signature byte", NOT_AN_IMAGE,
          data=png[:1] + b"Q" + png[2:])
    c.add("webp-bad-riff-size", "webp-bad-riff-size.webp", "WebP whose RIFF size is 0x7FFFFFFF",
          damaged("unable to parse image"),
          data=webp[:4] + struct.pack("<I", 0x7FFFFFFF) + webp[8:])
    c.add("tiff-bad-ifd-offset", "tiff-bad-ifd-offset.tif", "TIFF whose first-IFD offset points past the end",
          TIFF_HEADER,
          data=tif[:4] + struct.pack("<I" if tif[:2] == b"II" else ">I", 0x7FFFFFF0) + tif[8:])
    c.add("heic-flipped-header", "heic-flipped-header.heic", "HEIC with bytes 16...80 (ftyp/meta boxes) flipped",
          damaged("Unsupported file-type: Unspecified: File does not include any supported brands. (3.0)"),
          data=flip(heic, 16, 64, seed=3))

    # --- flipped bytes: in entropy-coded data ----------------------------------------------------------
    mid = scan + (len(jpg) - scan) // 2
    c.add("jpeg-flipped-scan", "jpeg-flipped-scan.jpg", "JPEG with 32 bytes of scan data flipped (decoded with visible damage)", crop(),
          data=flip(jpg, mid, 32, seed=4))
    c.add("png-flipped-idat", "png-flipped-idat.png", "PNG with 32 bytes of IDAT flipped (CRC mismatch)",
          damaged("libpng read error"),
          data=flip(png, idat[1] + 8 + idat[2] // 2, 32, seed=5))
    c.add("webp-flipped-data", "webp-flipped-data.webp", "lossy WebP with 32 bytes of VP8 data flipped (decoded with visible damage)",
          crop(),
          data=flip(webp, len(webp) // 2, 32, seed=6))
    c.add("heic-flipped-data", "heic-flipped-data.heic", "HEIC with 32 bytes of HEVC data flipped (decoded with visible damage)",
          crop(),
          data=flip(heic, len(heic) - len(heic) // 3, 32, seed=7))
    c.add("gif-flipped-data", "gif-flipped-data.gif", "GIF with 32 bytes of LZW data flipped", damaged("Invalid frame data"),
          data=flip(gif, len(gif) // 2, 32, seed=8))

    # --- decompression bombs and size limits -----------------------------------------------------------
    c.add("bomb-png-100000x100000", "bomb-png-100000x100000.png",
          "PNG declaring 100000x100000 (10 Gpx) with 1 kB of data", too_many_pixels(100000, 100000),
          data=png_with_ihdr(png[:8] + png[ihdr_off:ihdr_off + 25], 100000, 100000)
          + png_chunk(b"IDAT", zlib.compress(b"\x00" * 100000)) + png_chunk(b"IEND", b""))
    c.add("bomb-jpeg-60000x60000", "bomb-jpeg-60000x60000.jpg", "JPEG declaring 60000x60000 (3.6 Gpx)",
          too_many_pixels(60000, 60000), data=jpeg_with_size(jpg, 60000, 60000))
    c.add("bomb-jpeg-8000x8000", "bomb-jpeg-8000x8000.jpg",
          "JPEG declaring 8000x8000 (64 Mpx: read in two streaming passes) with the data of a 256x256 image: "
          "decoded in bounded memory, the missing part grey", crop(),
          data=jpeg_with_size(jpg, 8000, 8000))
    gif_bomb = bytearray(gif)
    gif_bomb[6:10] = struct.pack("<HH", 65535, 65535)
    c.add("bomb-gif-65535x65535", "bomb-gif-65535x65535.gif", "GIF whose screen is 65535x65535 (the frame's own size is used)", crop(),
          data=bytes(gif_bomb))
    # Decoders that hold the whole frame whatever the access (libjpeg for progressive JPEG, libvips' PNG loader
    # for interlaced PNG, the GIF loader) are bounded by --max-decode-memory, refused at the header.
    c.add("bomb-progressive-jpeg-16383", "bomb-progressive-jpeg-16383.jpg",
          "progressive JPEG declaring 16383x16383: libjpeg would keep 1.5 GiB of coefficients",
          whole_frame("a progressive JPEG", 16383, 16383, 6), data=jpeg_with_size(progressive, 16383, 16383))
    c.add("bomb-interlaced-png-16383", "bomb-interlaced-png-16383.png",
          "interlaced 16-bit RGB PNG declaring 16383x16383: read whole, 1.5 GiB",
          whole_frame("an interlaced PNG", 16383, 16383, 6),
          data=b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 16383, 16383, 16, 2, 0, 0, 1))
          + png_chunk(b"IDAT", zlib.compress(b"\x00" * 100000)) + png_chunk(b"IEND", b""))
    c.add("bomb-gif-frame-16383", "bomb-gif-frame-16383.gif", "GIF with one 16383x16383 frame: 2 GiB of frame buffers",
          whole_frame("a GIF", 16383, 16383, 8), data=gif_with_size(gif, 16383, 16383))
    c.add("bomb-png-ztxt", "bomb-png-ztxt.png", "PNG with a zTXt chunk inflating to 64 MB", crop(),
          data=png[:33] + png_chunk(b"zTXt", b"Comment\x00\x00" + zlib.compress(b"\x00" * (64 << 20), 9)) + png[33:])
    c.add("bomb-png-zero-50mpx", "bomb-png-zero-50mpx.png",
          "a real 8000x6250 black PNG (50 Mpx, 50 kB): decoded in bounded memory",
          crop(), data=big_black_png(8000, 6250))
    sparse = c.add("sparse-1gib", "sparse-1gib.jpg", "a JPEG followed by zeros to 1 GiB (a sparse file: no disk used)",
                   too_large(1 << 30), data=jpg)
    with open(sparse, "r+b") as f:
        f.truncate(1 << 30)

    # --- not regular files -------------------------------------------------------------------------------
    os.mkfifo(os.path.join(c.outdir, "fifo.jpg"))
    c.add("fifo", "fifo.jpg", "a FIFO: never opened (opening would block)", NOT_REGULAR, kind="fifo")
    os.symlink("symlink-loop.jpg", os.path.join(c.outdir, "symlink-loop.jpg"))
    c.add("symlink-loop", "symlink-loop.jpg", "a symbolic link to itself", unreadable("too many levels of symbolic links"),
          kind="symlink")
    os.symlink("no-such-file.jpg", os.path.join(c.outdir, "symlink-dangling.jpg"))
    c.add("symlink-dangling", "symlink-dangling.jpg", "a symbolic link to a missing file",
          unreadable("it is a symbolic link to a missing file"), kind="symlink")
    os.symlink("jpeg.jpg", os.path.join(c.outdir, "symlink-good.jpg"))
    c.add("symlink-good", "symlink-good.jpg", "a symbolic link to a good JPEG", crop(), kind="symlink")
    os.symlink("/dev/zero", os.path.join(c.outdir, "symlink-dev-zero.jpg"))
    c.add("symlink-dev-zero", "symlink-dev-zero.jpg", "a symbolic link to /dev/zero (endless data): never read",
          NOT_REGULAR, kind="symlink")
    os.mkdir(os.path.join(c.outdir, "directory.jpg"))
    c.add("directory", "directory.jpg", "a folder named like an image", DIRECTORY, kind="directory")
    path = c.add("unreadable", "unreadable.jpg", "a good JPEG with mode 000 (root reads it anyway)",
                 unreadable("permission denied"), data=jpg, expect_as_root=crop())
    os.chmod(path, 0)

    add_video_cases(c)


def ffmpeg(*args):
    subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", *args], check=True)


def add_video_cases(c):
    """Videos for `facecrop best-frame` (the case's "command"): good ones in each container, then cut
    mid-stream at several offsets, damaged in the index, the codec header or the coded data, empty, not a
    video, too long, and a Live Photo still without its video. Made with ffmpeg from Samples/portrait.png."""
    w = c.w
    portrait = os.path.join(SAMPLES, "portrait.png")
    x264 = ["-c:v", "libx264", "-preset", "veryfast", "-crf", "20", "-g", "5", "-pix_fmt", "yuv420p"]
    x265 = ["-c:v", "libx265", "-preset", "ultrafast", "-crf", "24", "-pix_fmt", "yuv420p", "-tag:v", "hvc1",
            "-x265-params", "log-level=error"]
    clip = ["-loop", "1", "-framerate", "10", "-t", "1.5", "-i", portrait, "-vf", "scale=256:256"]
    # Index ('moov') first, as phones and web encoders write it, so a cut leaves the index and loses data.
    ffmpeg(*clip, *x264, "-movflags", "+faststart", w("clip.mp4"))
    ffmpeg(*clip, *x265, "-movflags", "+faststart", w("clip.mov"))
    ffmpeg(*clip, *x264, w("index-last.mp4"))  # ffmpeg's default: the index after the data
    truncated = error(65, "Input '{input}' is truncated: the file ends before the video data it lists.")
    no_index = error(65, "Input '{input}' is truncated or damaged: it is an MP4/QuickTime file without its index "
                         "(the 'moov' box).")
    best = "best-frame"

    c.add("video-h264-mp4", "video-h264.mp4", "a good H.264 MP4, 1.5 s at 10 fps (best-frame)", crop(),
          source=w("clip.mp4"), command=best)
    c.add("video-hevc-mov", "video-hevc.mov", "a good HEVC QuickTime file (best-frame)", crop(),
          source=w("clip.mov"), command=best)
    c.add("video-m4v", "video.m4v", "a good H.264 MP4 named .m4v (best-frame)", crop(), source=w("clip.mp4"),
          command=best)
    c.add("video-index-last", "video-index-last.mp4", "a good MP4 with its index after the data (best-frame)",
          crop(), source=w("index-last.mp4"), command=best)
    c.add("video-as-image", "video-as-image.mp4", "a good video given to the image crop",
          error(65, "Input '{input}' is a video, not an image; 'facecrop best-frame' picks and saves its best frame."),
          source=w("clip.mp4"))
    mp4, mov = read(w("clip.mp4")), read(w("clip.mov"))
    for percent in (5, 30, 60, 90, 99):
        c.add("video-mp4-cut-%d" % percent, "video-mp4-cut-%d.mp4" % percent,
              "the H.264 MP4 cut mid-stream at %d %% (best-frame)" % percent, truncated,
              data=mp4[: len(mp4) * percent // 100], command=best)
    for percent in (5, 50, 95):
        c.add("video-mov-cut-%d" % percent, "video-mov-cut-%d.mov" % percent,
              "the HEVC QuickTime file cut at %d %% (best-frame)" % percent,
              no_index if percent == 5 else truncated, data=mov[: len(mov) * percent // 100], command=best)
    index_last = read(w("index-last.mp4"))
    c.add("video-cut-before-index", "video-cut-before-index.mp4",
          "an MP4 with its index last, cut in the data: no index (best-frame)", no_index,
          data=index_last[: len(index_last) // 2], command=best)
    c.add("video-index-flipped", "video-index-flipped.mp4",
          "the sample-size table ('stsz') of the index flipped (best-frame)", no_index,
          data=flip(mp4, mp4.find(b"stsz") + 12, 12, 0xFF), command=best)
    c.add("video-codec-header-flipped", "video-codec-header-flipped.mp4",
          "the H.264 parameter sets ('avcC') flipped (best-frame)",
          error(65, "Input '{input}' is damaged: the decoder refused the data: Invalid data found when processing "
                    "input."), data=flip(mp4, mp4.find(b"avcC") + 8, 8, 0x5A), command=best)
    data = bytearray(mp4)
    rng = random.Random(7)
    start = mp4.find(b"mdat") + 2000
    for _ in range(4):
        data[start + rng.randrange(len(mp4) - start - 100)] ^= 0xFF
    c.add("video-data-flipped", "video-data-flipped.mp4",
          "4 bytes flipped in the coded frames: decoded with FFmpeg's error concealment (best-frame)", crop(),
          data=bytes(data), command=best)
    c.add("video-empty", "video-empty.mp4", "an empty .mp4 (best-frame)", EMPTY, data=b"", command=best)
    c.add("video-text", "video-text.mov", "a text file named .mov (best-frame)",
          error(65, "Input '{input}' is not a video facecrop can read (no demuxer could read it: Invalid data "
                    "found when processing input)."), data=b"this is not a video\n", command=best)
    ffmpeg("-f", "lavfi", "-i", "color=c=gray:size=64x64:rate=1:duration=61", *x264, w("long.mp4"))
    c.add("video-too-long", "video-too-long.mp4", "61 s of 64x64 at 1 fps, over the 60 s limit (best-frame)",
          error(65, "Input '{input}' lasts 61.0 s, over the limit of 60.0 s; raise it with --max-duration if you trust "
                    "this file."), source=w("long.mp4"), command=best)
    os.mkdir(os.path.join(c.outdir, "stills"))  # out of reach of a batch over the folder, which would crop it
    c.add("video-still-alone", "stills/video-still-alone.heic", "a Live Photo still with no video beside it (best-frame)",
          error(66, "No video found beside the still '{input}' (looked for %s)." % ", ".join(
              "'{stem}.%s'" % ext for ext in ("mov", "MOV", "mp4", "MP4", "m4v", "M4V"))),
          source=w("face.heic"), command=best)


def big_black_png(width, height):
    """A valid grey PNG of zeros, built row by row: tiny on disk, width x height pixels decoded."""
    row = b"\x00" * (width + 1)
    z = zlib.compressobj(9)
    body = b"".join(z.compress(row) for _ in range(height)) + z.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", body) + png_chunk(b"IEND", b"")


def main(argv):
    if len(argv) != 1 or argv[0].startswith("-"):
        sys.exit("usage: scripts/make-corpus.py OUTDIR")
    outdir = os.path.abspath(argv[0])
    if os.path.isdir(outdir) and os.listdir(outdir) and not os.path.isfile(os.path.join(outdir, "cases.json")):
        sys.exit("make-corpus: %s is not empty and holds no earlier corpus; refusing to replace it" % outdir)
    if os.path.isdir(outdir):
        shutil.rmtree(outdir)  # an earlier corpus (its mode-000 file goes too: unlinking needs no read access)
    os.makedirs(outdir)
    with tempfile.TemporaryDirectory(prefix="facecrop-corpus-") as work:
        corpus = Corpus(outdir, work)
        build(corpus)
    with open(os.path.join(outdir, "cases.json"), "w", encoding="utf-8") as f:
        json.dump({"version": 1, "cases": corpus.cases}, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("make-corpus: %d cases in %s" % (len(corpus.cases), outdir))


if __name__ == "__main__":
    main(sys.argv[1:])
