"""thumbor's face and feature detectors as OpenCV's own Python binding runs them (Debian's
python3-opencv, with Debian's opencv-data cascades), for the service's smart-crop tests. Runs with
the system python3 (where Debian installs cv2), not the conformance venv.

Usage:
  face_reference.py IMAGE...   one JSON object per line: {"path", "width", "height", "faces",
                               "corners"}: the upright image's size, the boxes [x, y, w, h] that
                               thumbor's face detector finds (frontal-face "alt" cascade, scale
                               factor 1.2, 4 neighbours, faces at least 1/15 of the short side and
                               20 pixels), and the corners [x, y] its feature detector finds
                               (goodFeaturesToTrack: 20 corners, quality 0.04, 1 pixel apart).
"""
import json
import sys

import cv2

CASCADE = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt.xml"

classifier = cv2.CascadeClassifier(CASCADE)
if classifier.empty():
    sys.exit(f"cannot load {CASCADE}")
for path in sys.argv[1:]:
    # Upright (imread applies the EXIF orientation), grey as thumbor's engine converts it.
    grey = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    if grey is None:
        sys.exit(f"cannot read {path}")
    height, width = grey.shape
    side = max(20, int(min(width, height) / 15))
    faces = classifier.detectMultiScale(grey, 1.2, 4, minSize=(side, side))
    corners = cv2.goodFeaturesToTrack(grey, maxCorners=20, qualityLevel=0.04, minDistance=1.0, useHarrisDetector=False)
    print(json.dumps({
        "path": path, "width": width, "height": height,
        "faces": [[int(value) for value in face] for face in faces],
        "corners": [] if corners is None else [[float(value) for value in corner.ravel()] for corner in corners],
    }))
