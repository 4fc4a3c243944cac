#!/usr/bin/env python3
"""The enlarged-blur attack of issue 39 against a real `loupe serve` (binary given): the two enlarged blurs
at once with --request-timeout 10, /health polled every 200 ms meanwhile. A second argument
replaces the URL ("{n}" is the blur's sigma), e.g. "/insecure/rs:fit:2000:2000:1/bl:{n}/plain/local:///ok.jpg@jpg",
the most expensive blur the cost bound lets through. Loopback only. Run with the conformance venv's Python (Pillow):
  .venv-conformance/bin/python Scripts/bench/bounded-work-attack.py .build-release-tests/release/loupe"""
import subprocess, sys, tempfile, threading, time, urllib.request, urllib.error

loupe = sys.argv[1]
folder = tempfile.mkdtemp()
subprocess.run([sys.executable, "-c", f"from PIL import Image; Image.effect_noise((640, 480), 60).convert('RGB').save('{folder}/ok.jpg', quality=90)"], check=True)
server = subprocess.Popen([loupe, "serve", "--port", "0", "--allow-unsigned", "--quiet", "--local-root", folder, "--request-timeout", "10"],
                          stdout=subprocess.PIPE, text=True)
port = None
for _ in range(100):
    line = server.stdout.readline()
    if "listening on http://" in line:
        port = int(line.strip().rsplit(":", 1)[1]); break
base = f"http://127.0.0.1:{port}"

def get(path, timeout):
    start = time.monotonic()
    try:
        with urllib.request.urlopen(base + path, timeout=timeout) as r:
            body = r.read(); status = r.status
    except urllib.error.HTTPError as e:
        body = e.read(); status = e.code
    except Exception as e:
        body = str(e).encode(); status = 0
    return status, time.monotonic() - start, body[:200]

results = {}
def bomb(n):
    results[n] = get((sys.argv[2] if len(sys.argv) > 2 else "/insecure/rs:fit:8192:8192:1/bl:{n}/plain/local:///ok.jpg@jpg").format(n=n), 60)
threads = [threading.Thread(target=bomb, args=(n,)) for n in (100, 99)]
for t in threads: t.start()
health = []
start = time.monotonic()
while any(t.is_alive() for t in threads) and time.monotonic() - start < 60:
    s, t, _ = get("/health", 3); health.append((s, t)); time.sleep(0.2)
for t in threads: t.join()
normal = get("/insecure/rs:fit:300:300/plain/local:///ok.jpg", 30)
server.terminate(); server.wait(10)
for n, (s, t, body) in sorted(results.items()):
    print(f"bl:{n}: {s} after {t:.2f} s {body.decode(errors='replace')}")
print(f"/health: {len(health)} polls, statuses {sorted(set(s for s, _ in health))}, slowest {max(t for _, t in health) * 1000:.0f} ms")
print(f"a normal request after: {normal[0]} in {normal[1] * 1000:.0f} ms")
