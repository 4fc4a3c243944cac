"""Builds imgproxy URLs with the PyPI `imgproxy` package, for loupe serve's compatibility tests.

Usage: imgproxy_urls.py KEY_HEX SALT_HEX SOURCE... ; prints one JSON object per line:
{"source", "options", "path"} for a few option sets per source (signed with KEY/SALT; "-" for
both gives unsigned 'insecure' URLs).
"""
import json
import sys

from imgproxy import ImgProxy

key, salt, *sources = sys.argv[1:]
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
        print(json.dumps({"source": source, "options": case, "path": url("q:70")}))
