#!/usr/bin/env python3
"""Measures the bounded-work timings against a real `loupe serve` (binary given): the 504 of a blur cut
at a 2 s deadline, the next cheap request after it (against one alone), and a /batch with a
declared 10 GB body. Loopback only; five rounds each, medians printed. With the conformance
venv's Python (Pillow): .venv-conformance/bin/python Scripts/bench/bounded-work-timings.py .build-release-tests/release/loupe"""
import json, os, socket, statistics, subprocess, sys, tempfile, time, urllib.request, urllib.error

loupe = sys.argv[1]
folder = tempfile.mkdtemp()
subprocess.run([sys.executable, "-c", f"""
from PIL import Image; import random
random.seed(21)
im = Image.effect_noise((640, 480), 60).convert('RGB'); im.save('{folder}/ok.jpg', quality=90)
"""], check=True)
server = subprocess.Popen([loupe, "serve", "--port", "0", "--allow-unsigned", "--quiet", "--local-root", folder,
                           "--workers", "1", "--request-timeout", "2"], stdout=subprocess.PIPE, text=True)
port = None
for _ in range(100):
    line = server.stdout.readline()
    if "listening on http://" in line:
        port = int(line.strip().rsplit(":", 1)[1]); break
assert port, "no port"
base = f"http://127.0.0.1:{port}"

def get(path, timeout=30):
    start = time.monotonic()
    try:
        with urllib.request.urlopen(base + path, timeout=timeout) as r:
            r.read(); status = r.status
    except urllib.error.HTTPError as e:
        e.read(); status = e.code
    return status, time.monotonic() - start

def declared_body():
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"POST /batch HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n[\"a\",")
    start = time.monotonic()
    data = s.recv(65536)
    elapsed = time.monotonic() - start
    s.close()
    return data.split(b"\r\n", 1)[0].decode(), elapsed

bomb = "/insecure/rs:fit:2000:2000:1/bl:100/plain/local:///ok.jpg@jpg"
alone, late, after, body = [], [], [], []
try:
    get("/insecure/w:10/plain/local:///ok.jpg")
    for round in range(5):
        s, t = get(f"/insecure/w:{11 + round}/plain/local:///ok.jpg"); assert s == 200, s; alone.append(t)
        s, t = get(bomb.replace("bl:100", f"bl:{100 - round}")); late.append((s, t))
        s, t = get(f"/insecure/w:{20 + round}/plain/local:///ok.jpg"); assert s == 200, s; after.append(t)
        line, t = declared_body(); body.append((line, t))
finally:
    server.terminate(); server.wait(10)
ms = lambda xs: f"{statistics.median(xs) * 1000:.0f} ms (min {min(xs) * 1000:.0f}, max {max(xs) * 1000:.0f})"
print("504 statuses", [s for s, _ in late], "at", ms([t for _, t in late]), "for a 2 s deadline")
print("cheap request alone", ms(alone), "; sent at the 504", ms(after))
print("declared 10 GB /batch:", body[0][0], ms([t for _, t in body]))
