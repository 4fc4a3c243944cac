"""thumbor's filter-test sources as its tests hand them to the engine, for loupe serve's
thumbor-filter conformance tests: thumbor's `get_filtered` opens each fixture with Pillow and
saves it as PNG before loading it (so its engine never decodes the JPEG at a reduced scale, as
it would from a JPEG), and the conformance tests serve the same bytes.

Usage: thumbor_filter_sources.py OUT_DIR FIXTURE... ; writes OUT_DIR/<fixture's name>.png for each.
"""
import os
import sys

from PIL import Image

out = sys.argv[1]
for path in sys.argv[2:]:
    Image.open(path).save(os.path.join(out, os.path.basename(path) + ".png"), "PNG")
