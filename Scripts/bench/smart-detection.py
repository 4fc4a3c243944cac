"""The CPU of thumbor's `smart` detection in OpenCV (Debian's, through its Python binding): the
frontal-face cascade with thumbor's parameters and `goodFeaturesToTrack`, on the grey copy Loupe
detects on (GreyImage: at most 300 pixels on the short side and 1200 on the long one) beside the
same calls on the full-size image, as thumbor makes them. Single-threaded (OpenCV's pool off, as
libLoupeVision sets it), process CPU time, median of five runs on the copy and three on the full
size.

Usage: /usr/bin/python3 Scripts/bench/smart-detection.py IMAGE...
"""
import statistics
import sys
import time

import cv2

cv2.setNumThreads(0)
cv2.ocl.setUseOpenCL(False)
cascade = cv2.CascadeClassifier("/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt.xml")


def detect(image, smallest):
    start = time.process_time()
    faces = cascade.detectMultiScale(image, 1.2, 4, minSize=(smallest, smallest))
    middle = time.process_time()
    cv2.goodFeaturesToTrack(image, maxCorners=20, qualityLevel=0.04, minDistance=1.0)
    end = time.process_time()
    return (middle - start) * 1000, (end - middle) * 1000, len(faces)


for path in sys.argv[1:]:
    grey = cv2.imread(path, cv2.IMREAD_GRAYSCALE)
    height, width = grey.shape
    scale = min(1, 300 / min(width, height), 1200 / max(width, height))
    copy = cv2.resize(grey, (max(1, round(width * scale)), max(1, round(height * scale))), interpolation=cv2.INTER_AREA)
    smallest = max(20, int(min(width, height) / 15))
    small = [detect(copy, max(20, int(smallest * scale))) for _ in range(5)]
    full = [detect(grey, smallest) for _ in range(3)]
    print(f"{path.rsplit('/', 1)[-1]} {width}x{height}, copy {copy.shape[1]}x{copy.shape[0]}: "
          f"faces {statistics.median(r[0] for r in small):.1f} ms, corners {statistics.median(r[1] for r in small):.1f} ms, "
          f"{small[0][2]} face(s) | full size: faces {statistics.median(r[0] for r in full):.1f} ms, "
          f"corners {statistics.median(r[1] for r in full):.1f} ms, {full[0][2]} face(s)")
