#!/usr/bin/env python3
"""Check that every relative link in the repository's Markdown files resolves: the file or folder exists, and
a #fragment names a heading of the target page (GitHub's anchors). External links (http, https, mailto) are
not fetched. Run by `make test` and `make test-fast`; exits 1 and lists the broken links.

    scripts/check-doc-links.py [FILE.md ...]     # default: every tracked *.md file
"""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def markdown_files():
    """Every tracked or new *.md file; without git (a source tarball), every *.md outside hidden and build folders."""
    try:
        out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "*.md"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout
        files = [os.path.join(ROOT, f) for f in out.splitlines()]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for folder, subfolders, names in os.walk(ROOT):
            subfolders[:] = [d for d in subfolders if not d.startswith(".") and d not in ("demo-out", "__pycache__")]
            files += [os.path.join(folder, n) for n in names if n.endswith(".md")]
    return sorted(f for f in files if os.path.isfile(f))


def prose_lines(text):
    """The lines outside fenced code blocks, numbered from 1: as written, and with inline code spans blanked."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line, re.sub(r"`[^`]*`", lambda m: " " * len(m.group(0)), line)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\*|_(?=\w)|(?<=\w)_", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, counts = set(), {}
        with open(path, encoding="utf-8") as f:
            for _, line, _ in prose_lines(f.read()):
                m = HEADING.match(line)
                if m:
                    base = slug(m.group(2))
                    n = counts.get(base, 0)
                    counts[base] = n + 1
                    found.add(base if n == 0 else "%s-%d" % (base, n))
        cache[path] = found
    return cache[path]


def check(path):
    problems = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for number, raw, line in prose_lines(text):
        # Links found in the code-blanked line (so not inside `code`), read from the line as written.
        for m in LINK.finditer(line):
            target = raw[m.start(1):m.end(1)]
            if re.match(r"[a-z][a-z0-9+.-]*:", target):
                continue
            file_part, _, fragment = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            where = "%s:%d: %s" % (os.path.relpath(path, ROOT), number, target)
            if not os.path.exists(resolved):
                problems.append("%s: no such file" % where)
            elif fragment and resolved.endswith(".md") and fragment not in anchors(resolved):
                problems.append("%s: no heading with that anchor in %s" % (where, os.path.relpath(resolved, ROOT)))
    return problems


def main(argv):
    files = [os.path.abspath(a) for a in argv] or markdown_files()
    problems = [p for f in files for p in check(f)]
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        sys.exit("check-doc-links: %d broken link(s)" % len(problems))
    print("check-doc-links: %d files, every relative link resolves" % len(files))


if __name__ == "__main__":
    main(sys.argv[1:])
