"""thumbor URLs made and read by libthumbor (PyPI), thumbor's own URL library, for loupe serve's
thumbor-dialect tests.

Usage:
  thumbor_urls.py sign KEY SOURCE   one JSON object per line: {"path", "options"} for a few option
                                    sets, each signed with KEY by libthumbor's CryptoURL.
  thumbor_urls.py parse             one JSON object per line: {"path", "parsed"} — a spread of
                                    option combinations written by libthumbor's Url.generate_options
                                    and read back by its Url.parse_decrypted (thumbor's URL pattern).
"""
import itertools
import json
import random
import sys

from libthumbor import CryptoURL
from libthumbor.url import Url

mode = sys.argv[1]
if mode == "sign":
    key, source = sys.argv[2], sys.argv[3]
    crypto = CryptoURL(key=key)
    cases = [
        dict(width=64, height=64),
        dict(width=40, height=30, smart=True, filters=["quality(70)", "format(png)"]),
        dict(width=50, height=50, fit_in=True, halign="left", valign="top"),
        dict(crop=((10, 10), (210, 110)), width=100, height=0),
    ]
    for case in cases:
        print(json.dumps({"path": crypto.generate(image_url=source, **case), "options": case}))
elif mode == "parse":
    choices = dict(
        meta=[False, True],
        trim=[None, True, "bottom-right", "top-left:10", "bottom-right:5"],
        crop=[None, (10, 20, 300, 400), (0, 0, 5, 5)],
        fit=[(False, False, False), (True, False, False), (True, True, False), (True, False, True), (True, True, True)],
        width=[0, 300, "orig"],
        height=[0, 200, "orig"],
        horizontal_flip=[False, True],
        vertical_flip=[False, True],
        halign=["center", "left", "right"],
        valign=["middle", "top", "bottom"],
        smart=[False, True],
        filters=[None, "quality(80)", "quality(80):fill(blue):focal(1x2:30x40)", "round_corner(20,255,255,255):unknown(1)"],
        image=["example.com/a.jpg", "http://example.com/a.jpg?x=1", "https%3A%2F%2Fexample.com%2Fa%20b.jpg", "s.glbimg.com/x/y/z.png"],
    )
    generator = random.Random(41)
    names = list(choices)
    combos = set()
    while len(combos) < 400:
        combos.add(tuple(generator.randrange(len(choices[name])) for name in names))
    for combo in sorted(combos):
        case = {name: choices[name][index] for name, index in zip(names, combo)}
        if case["fit"][0] and not (case["width"] or case["height"]):
            continue
        crop = case["crop"] or (None, None, None, None)
        options = Url.generate_options(
            meta=case["meta"], trim=case["trim"], crop_left=crop[0], crop_top=crop[1], crop_right=crop[2],
            crop_bottom=crop[3], fit_in=case["fit"][0], adaptive=case["fit"][1], full=case["fit"][2],
            width=case["width"], height=case["height"], horizontal_flip=case["horizontal_flip"],
            vertical_flip=case["vertical_flip"], halign=case["halign"], valign=case["valign"],
            smart=case["smart"], filters=case["filters"])
        rest = (options + "/" if options else "") + case["image"]
        print(json.dumps({"path": "/unsafe/" + rest, "parsed": Url.parse_decrypted("/" + rest)}))
