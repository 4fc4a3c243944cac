#!/usr/bin/env python3
"""Runs the documentation's `console` examples and checks that they print what the page shows.

The pages are README.md and every docs/*.md. Each ```console block holds commands (lines starting
with "$ ") each followed by the output it prints. Commands run with bash from the repository root,
with the `loupe` under test first on PATH and a private XDG_CACHE_HOME; their standard output is
compared with the page's text after both have their timings ("ms":123, 123 ms) replaced by a
placeholder. Exits 1 on the first difference, printing both.

Commands CI cannot run (a deployment on other machines, output that changes from run to run) go
in ```sh, ```bash or ```text blocks. A fence with no language that holds "$ " lines is refused,
so that every transcript says whether it is checked.

usage: Scripts/ci/check-readme.py <folder holding the loupe binary>
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pages():
    """README.md, then docs/*.md in name order, relative to the repository root."""
    found = ["README.md"] + sorted(os.path.relpath(path, ROOT) for path in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    return [page for page in found if os.path.isfile(os.path.join(ROOT, page))]


def examples(text, page):
    """(command, expected output) pairs of every console block of one page, in order; exits on a
    fence with no language holding commands, or on a block left open."""
    pairs, block, fence, start = [], None, None, 0
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if fence is None:
            match = re.match(r"^(`{3,})(.*)$", stripped)
            if match:
                fence, language, start = match.group(1), match.group(2).strip(), number
                block = [] if language == "console" else None
                bare = language == ""
            continue
        if stripped == fence:
            if block is not None:
                pairs += block
            fence, block = None, None
        elif block is not None:
            if line.startswith("$ "):
                block.append([line[2:], []])
            elif block:
                block[-1][1].append(line)
        elif bare and line.startswith("$ "):
            sys.exit(f"check-readme: {page}:{number}: a fence with no language holds a command; "
                     "use ```console (checked) or ```text / ```sh (not checked)")
    if fence is not None:
        sys.exit(f"check-readme: {page}:{start}: a fence is never closed")
    return [(command, "\n".join(output)) for command, output in pairs]


def normalized(text):
    text = re.sub(r'"ms":\d+', '"ms":N', text)
    text = re.sub(r'\b\d+ ms\b', 'N ms', text)
    return text.rstrip("\n")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    binaries = os.path.abspath(sys.argv[1])
    checks = []
    for page in pages():
        with open(os.path.join(ROOT, page), encoding="utf-8") as file:
            checks += [(page, command, expected) for command, expected in examples(file.read(), page)]
    if not checks:
        sys.exit("check-readme: no console examples found in README.md or docs/")
    with tempfile.TemporaryDirectory(prefix="loupe-readme-") as home:
        environment = dict(os.environ, PATH=binaries + os.pathsep + os.environ["PATH"], XDG_CACHE_HOME=home)
        for page, command, expected in checks:
            result = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=ROOT, env=environment,
                                    capture_output=True, text=True, timeout=300)
            if normalized(result.stdout) != normalized(expected):
                print(f"check-readme: {page}: `{command}` printed something else than the page shows.")
                print("--- " + page + "\n" + expected + "\n--- actual\n" + result.stdout + "--- stderr\n" + result.stderr)
                sys.exit(1)
            print(f"check-readme: ok  {page}: {command}")
    count = len({page for page, _, _ in checks})
    print(f"check-readme: all {len(checks)} examples in {count} pages print what they show")


if __name__ == "__main__":
    main()
