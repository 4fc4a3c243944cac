"""Builds imgproxy URLs with the PyPI `imgproxy` package, for loupe serve's compatibility tests.

Usage: imgproxy_urls.py [--options=OPTIONS] KEY_HEX SALT_HEX SOURCE... ; prints one JSON object per line:
{"source", "options", "path"} for a few option sets per source (signed with KEY/SALT; "-" for
both gives unsigned 'insecure' URLs). OPTIONS (default q:70) are added to every URL as the
builder adds extra options.
"""
import json
import sys

from imgproxy import ImgProxy

args = sys.argv[1:]
extra = "q:70"
if args and args[0].startswith("--options="):
    extra, args = args[0][len("--options="):], args[1:]
key, salt, *sources = args
key = None if key == "-" else key
salt = None if salt == "-" else salt

cases = [
    dict(width=64, height=64, resizing_type="fit"),
    dict(width=40, height=30, resizing_type="fill", gravity="nowe", extension="png"),
    dict(width=50, height=0, resizing_type="auto", enlarge=True, extension="webp"),
]
for source in sources:
    for case in cases:
        url = ImgProxy(source, key=key, salt=salt, **case)
        print(json.dumps({"source": source, "options": case, "path": url(extra)}))
