#!/usr/bin/env python3
"""<picture> elements from facecrop's site manifest: python3 picture.py faces.json [PREFIX-TO-DROP]

One <picture> per photo and aspect (sizes of one aspect are widths of one srcset): a <source> per modern format,
smallest files first (AVIF, WebP), and an <img> with the JPEG (or PNG) fallback, each with a srcset of every
width. Paths become URLs by dropping PREFIX-TO-DROP (default "public/"), adding "/" and percent-encoding them,
so that names with spaces or commas stay one srcset entry."""
import html
import json
import sys
import urllib.parse

site = json.load(open(sys.argv[1]))
prefix = sys.argv[2] if len(sys.argv) > 2 else "public/"
types = {"avif": "image/avif", "webp": "image/webp", "heif": "image/heic", "png": "image/png", "jpeg": "image/jpeg", "tiff": "image/tiff"}
# Browsers take the first <source> whose type they support: the smallest files come first.
preference = ["avif", "webp", "heif"]
fallbacks = ["jpeg", "png"]


def url(output):
    path = output["path"].removeprefix(prefix)
    return html.escape("/" + urllib.parse.quote(path, safe="/"))


def srcset(outputs):
    widths = {}
    for o in outputs:  # one entry per width: outputs no larger than their crop may share one
        widths.setdefault(o["width"], o)
    return ", ".join(f"{url(o)} {w}w" for w, o in sorted(widths.items(), reverse=True))


for image in site["images"]:
    shapes = {}
    for output in image["outputs"]:
        shapes.setdefault(output["aspect"], {}).setdefault(output["format"], []).append(output)
    for name, formats in shapes.items():
        fallback_format = next((f for f in fallbacks if f in formats), next(iter(formats)))
        fallback = formats.pop(fallback_format)
        img = max(fallback, key=lambda o: o["width"])
        order = sorted(formats, key=lambda f: preference.index(f) if f in preference else len(preference))
        print(f"<!-- {html.escape(image['input'])} ({html.escape(name)}) -->\n<picture>")
        for format in order:
            print(f'  <source type="{types.get(format, "image/" + format)}" srcset="{srcset(formats[format])}" sizes="100vw">')
        print(f'  <img src="{url(img)}" srcset="{srcset(fallback)}" sizes="100vw" width="{img["width"]}" height="{img["height"]}" alt="">')
        print("</picture>")
