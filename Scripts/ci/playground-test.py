#!/usr/bin/env python3
"""Browser tests of the playground page: headless Chromium (Debian's chromium and
chromium-driver, python3-selenium) against a real `loupe serve --dev` on 127.0.0.1.

    Scripts/ci/playground-test.py --loupe .build/debug/loupe --screenshots /tmp/shots

Checks: the page loads without console errors; an option changes the URL and the result's
natural size to what the service answers for that URL; the BlurHash and ThumbHash canvases'
average colours match the hashes' DC (the Swift encoders' averages); the feed shows its cells in
order with the service's background colours and ends with every working poster loaded; the
menu's slow section still shows placeholders while the fast one has items; with a key
(`--playground --key`), the page's URLs carry the key's signatures and are served. Every wait is
bounded; the script stops the server it started. Prints 'N passed, N failed'.
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request
import zlib

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import Select

WAIT = 60  # seconds, the bound of every wait


KEY, SALT = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881", "520f986b998545b4785e0defbc4f3c1203f22a2e"


def start_server(loupe, arguments=("--dev",)):
    process = subprocess.Popen([loupe, "serve", *arguments, "--port", "0", "--quiet"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
        if match:
            return process, match.group(1)
    process.kill()
    raise SystemExit("loupe serve --dev did not start")


def browser():
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000",
                     "--no-proxy-server", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                     "--disable-sync", "--disable-default-apps", "--disable-extensions", "--hide-scrollbars",
                     "--disable-client-side-phishing-detection", "--disable-domain-reliability",
                     "--disable-features=OptimizationHints,MediaRouter,Translate,AutofillServerCommunication",
                     # Loopback only: any other host name fails to resolve.
                     "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]:
        options.add_argument(argument)
    options.binary_location = "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait_for(driver, script, what, timeout=WAIT):
    """Polls `script` (JavaScript returning a value) until it is truthy, at most `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("timed out waiting for " + what)


def fetch(url, body=None):
    request = urllib.request.Request(url, data=body, method="POST" if body is not None else "GET")
    with urllib.request.urlopen(request, timeout=WAIT) as response:
        return response.status, dict(response.headers), response.read()


def write_png(path, width, height):
    """A gradient PNG written with the standard library (the source of the signed server)."""
    rows = b"".join(b"\x00" + bytes(v for x in range(width) for v in (x * 255 // width, y * 255 // height, 128)) for y in range(height))
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    with open(path, "wb") as file:
        file.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                   + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


def errors(driver, allowed=()):
    """The console's errors since the last call, except those naming an `allowed` path."""
    entries = driver.get_log("browser")
    return [e["message"] for e in entries if e["level"] == "SEVERE" and not any(path in e["message"] for path in allowed)]


def close(a, b, tolerance):
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--loupe", default=".build/debug/loupe")
    parser.add_argument("--screenshots", required=True)
    arguments = parser.parse_args()
    os.makedirs(arguments.screenshots, exist_ok=True)
    server, base = start_server(arguments.loupe)
    driver = browser()
    passed, failed = 0, 0

    def check(name, test):
        nonlocal passed, failed
        try:
            test()
            passed += 1
            print("PASS", name, flush=True)
        except Exception as error:  # a failed check is reported, and the others still run
            failed += 1
            print("FAIL", name, "-", repr(error), flush=True)

    def page_loads():
        driver.get(base + "/")
        wait_for(driver, "const i = document.getElementById('result'); return i.dataset.url && i.naturalWidth > 0", "the first result")
        wait_for(driver, "return document.getElementById('info').dataset.ready", "/info of the source")
        shown = driver.find_element("id", "timing").text
        assert "total" in shown and "cache" in shown, "Server-Timing stages not shown: " + shown
        found = errors(driver)
        assert not found, "console errors: %s" % found

    def option_changes_url_and_size():
        before = driver.find_element("id", "url").text
        Select(driver.find_element("id", "rt")).select_by_visible_text("fit")
        Select(driver.find_element("id", "f")).select_by_visible_text("png")
        for field, value in (("w", "150"), ("h", "150")):
            element = driver.find_element("id", field)
            element.clear()
            element.send_keys(value)
        url = wait_for(driver, """const u = document.getElementById('url').textContent, i = document.getElementById('result');
            return u.includes('rs:fit:150:150') && u.endsWith('@png') && i.dataset.url === u && i.complete && i.naturalWidth > 0 ? u : null""",
                       "the result of the changed options")
        assert url != before
        width, height = driver.execute_script("const i = document.getElementById('result'); return [i.naturalWidth, i.naturalHeight]")
        status, headers, body = fetch(base + url)
        assert status == 200 and headers.get("Content-Type") == "image/png"
        assert png_size(body) == (width, height), "page shows %dx%d, the service answers %s" % (width, height, png_size(body))
        assert max(width, height) == 150, (width, height)
        # Padding grows the result: the page shows the service's new size.
        padding = driver.find_element("id", "pd")
        padding.clear()
        padding.send_keys("10")
        url = wait_for(driver, """const u = document.getElementById('url').textContent, i = document.getElementById('result');
            return u.includes('/pd:10/') && i.dataset.url === u && i.complete && i.naturalWidth > 0 ? u : null""", "the padded result")
        padded = driver.execute_script("const i = document.getElementById('result'); return [i.naturalWidth, i.naturalHeight]")
        assert png_size(fetch(base + url)[2]) == tuple(padded) == (width + 20, height + 20), (padded, width, height)
        wait_for(driver, "return document.getElementById('timing').textContent.includes('encode')", "the padded result's stages")
        driver.save_screenshot(os.path.join(arguments.screenshots, "playground.png"))
        padding.clear()
        padding.send_keys("0")
        wait_for(driver, "return !document.getElementById('url').textContent.includes('pd:')", "padding removed")

    def placeholders_match_their_hashes():
        for canvas in ("blurhash", "thumbhash"):
            average = driver.execute_script("return LoupePlaceholders.canvasAverage(document.getElementById(arguments[0]))", canvas)
            dc = [int(v) for v in driver.find_element("id", canvas).get_attribute("data-average").split(",")]
            assert close(average, dc, 12), "%s canvas average %s, hash DC %s" % (canvas, average, dc)
        # The DC the page decoded is the one the Swift encoder wrote for this source.
        source = driver.execute_script("return document.getElementById('sample').value")
        info = json.loads(fetch(base + "/info/insecure/plain/" + source)[2])
        digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~"
        value = 0
        for character in info["blurhash"][2:6]:
            value = value * 83 + digits.index(character)
        dc = [int(v) for v in driver.find_element("id", "blurhash").get_attribute("data-average").split(",")]
        assert dc == [value >> 16, (value >> 8) & 255, value & 255], (dc, info["blurhash"])

    def feed_in_order_with_backgrounds():
        driver.get(base + "/#feed")
        wait_for(driver, """const f = document.getElementById('feed'); return f.dataset.done &&
            [...f.querySelectorAll('.cell')].every(c => c.dataset.state === 'loaded')""", "every working poster")
        cells = driver.execute_script("""return [...document.querySelectorAll('#feed .cell')].map(c =>
            [Number(c.dataset.index), c.dataset.background, getComputedStyle(c).backgroundColor])""")
        config = json.loads(fetch(base + "/playground/config.json")[2])
        body = json.dumps([{"source": s, "options": "rs:fill:360:240"} for s in config["feed"]]).encode()
        lines = [json.loads(line) for line in fetch(base + "/batch", body)[2].decode().splitlines()]
        expected = [(line["index"], line["backgroundColor"].lstrip("#")) for line in lines if line["ok"]]
        assert len(expected) < len(lines), "the dev feed has failing posters to drop"
        assert [(c[0], c[1]) for c in cells] == expected, "cells %s, service %s" % (cells, expected)
        for index, hex_color, computed in cells:
            rgb = tuple(int(hex_color[i:i + 2], 16) for i in (0, 2, 4))
            assert computed == "rgb(%d, %d, %d)" % rgb, (index, hex_color, computed)
        found = errors(driver)
        assert not found, "console errors: %s" % found
        driver.save_screenshot(os.path.join(arguments.screenshots, "feed.png"))

    def menu_sections_independent():
        driver.get(base + "/#menu")
        state = "return document.getElementById(arguments[0]) && document.getElementById(arguments[0]).dataset.state"
        deadline = time.monotonic() + WAIT
        while driver.execute_script(state, "section-side") != "failed" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert driver.execute_script(state, "section-soup") == "loaded", "the fast section has no items"
        assert driver.execute_script(state, "section-side") == "failed", "the failing section did not fail"
        # The slow section (3 s) still shows its placeholders while the others have settled.
        assert driver.execute_script(state, "section-main") == "loading", "the slow section settled too early"
        placeholders = driver.execute_script("return document.querySelectorAll('#section-main .item.placeholder').length")
        assert placeholders == 3, placeholders
        soup_items = driver.execute_script("return document.querySelectorAll('#section-soup .item:not(.placeholder)').length")
        assert soup_items == 2, soup_items
        wait_for(driver, "return [...document.querySelectorAll('#section-soup img')].every(i => i.complete && i.naturalWidth > 0)",
                 "the soup's photos", timeout=10)
        driver.save_screenshot(os.path.join(arguments.screenshots, "menu.png"))
        wait_for(driver, "return document.getElementById('section-main').dataset.state === 'loaded'", "the slow section")
        assert driver.execute_script("return document.querySelectorAll('#section-main .item:not(.placeholder)').length") == 3
        # The failing section's 503 is the one error the menu makes on purpose.
        found = errors(driver, allowed=("/playground/menu/side",))
        assert not found, "console errors: %s" % found

    def signs_through_the_server_with_a_key():
        folder = tempfile.mkdtemp(prefix="loupe-playground-")
        write_png(os.path.join(folder, "gradient.png"), 120, 80)
        signed_server, signed_base = start_server(arguments.loupe, ("--playground", "--key", KEY, "--salt", SALT, "--local-root", folder))
        try:
            driver.get(signed_base + "/")
            source = driver.find_element("id", "source")
            source.send_keys("local:///gradient.png")
            url = wait_for(driver, """const u = document.getElementById('url').textContent, i = document.getElementById('result');
                return u.startsWith('/') && i.dataset.url === u && i.complete && i.naturalWidth > 0 ? u : null""", "the signed result")
            signature, path = url[1:].split("/", 1)
            expected = base64.urlsafe_b64encode(hmac.new(bytes.fromhex(KEY), bytes.fromhex(SALT) + ("/" + path).encode(),
                                                         hashlib.sha256).digest()).rstrip(b"=").decode()
            assert signature == expected, (signature, expected)
            assert fetch(signed_base + url)[0] == 200
            wait_for(driver, "return document.getElementById('info').dataset.ready", "the signed /info")
            found = errors(driver)
            assert not found, "console errors: %s" % found
        finally:
            signed_server.terminate()
            signed_server.wait(timeout=30)
            shutil.rmtree(folder, ignore_errors=True)

    try:
        check("the page loads with no console errors", page_loads)
        check("an option changes the URL and the result's natural size", option_changes_url_and_size)
        check("placeholder canvases match their hashes' average colours", placeholders_match_their_hashes)
        check("the feed: cells in order, the service's backgrounds, every working poster loaded", feed_in_order_with_backgrounds)
        check("the menu: the slow section's placeholders show while the others settled", menu_sections_independent)
        check("with a key, the page's URLs are signed by the server and served", signs_through_the_server_with_a_key)
    finally:
        driver.quit()
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
