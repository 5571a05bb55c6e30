#!/usr/bin/env python3
"""<picture> elements from facecrop's site manifest: python3 picture.py faces.json [PREFIX-TO-DROP]

One <source> per modern format and an <img> with the JPEG fallback, each with a srcset of every width;
paths become URLs by dropping PREFIX-TO-DROP (default "public/") and adding "/"."""
import html
import json
import sys

site = json.load(open(sys.argv[1]))
prefix = sys.argv[2] if len(sys.argv) > 2 else "public/"
types = {"avif": "image/avif", "webp": "image/webp", "heif": "image/heic", "png": "image/png", "jpeg": "image/jpeg"}


def url(output):
    return html.escape("/" + output["path"].removeprefix(prefix))


def srcset(outputs):
    return ", ".join(f'{url(o)} {o["width"]}w' for o in outputs)


for image in site["images"]:
    formats = {}
    for output in image["outputs"]:
        formats.setdefault(output["format"], []).append(output)
    fallback = formats.pop("jpeg", None) or formats.pop("png", None) or formats.pop(next(iter(formats)))
    img = max(fallback, key=lambda o: o["width"])
    print(f'<!-- {html.escape(image["input"])} -->\n<picture>')
    for format, outputs in formats.items():
        print(f'  <source type="{types.get(format, "image/" + format)}" srcset="{srcset(outputs)}" sizes="100vw">')
    print(f'  <img src="{url(img)}" srcset="{srcset(fallback)}" sizes="100vw" width="{img["width"]}" height="{img["height"]}" alt="">')
    print("</picture>")
