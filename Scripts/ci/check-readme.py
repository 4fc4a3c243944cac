#!/usr/bin/env python3
"""Runs the README's `console` examples and checks that they print what the README shows.

Each ```console block holds commands (lines starting with "$ ") each followed by the output it
prints. Commands run with bash from the repository root, with the `loupe` under test first on
PATH and a private XDG_CACHE_HOME; their standard output is compared with the README's text
after both have their timings ("ms":123, 123 ms) replaced by a placeholder. Exits 1 on the first
difference, printing both.

usage: Scripts/ci/check-readme.py <folder holding the loupe binary>
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def examples(readme):
    """(command, expected output) pairs of every console block, in order."""
    pairs, block = [], None
    for line in readme.splitlines():
        if block is None:
            if line.strip() == "```console":
                block = []
            continue
        if line.strip() == "```":
            pairs += block
            block = None
        elif line.startswith("$ "):
            block.append([line[2:], []])
        elif block:
            block[-1][1].append(line)
    return [(command, "\n".join(output)) for command, output in pairs]


def normalized(text):
    text = re.sub(r'"ms":\d+', '"ms":N', text)
    text = re.sub(r'\b\d+ ms\b', 'N ms', text)
    return text.rstrip("\n")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    binaries = os.path.abspath(sys.argv[1])
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as file:
        pairs = examples(file.read())
    if not pairs:
        sys.exit("check-readme: no console examples found in README.md")
    with tempfile.TemporaryDirectory(prefix="loupe-readme-") as home:
        environment = dict(os.environ, PATH=binaries + os.pathsep + os.environ["PATH"], XDG_CACHE_HOME=home)
        for command, expected in pairs:
            result = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=ROOT, env=environment,
                                    capture_output=True, text=True, timeout=300)
            if normalized(result.stdout) != normalized(expected):
                print(f"check-readme: `{command}` printed something else than the README shows.")
                print("--- README\n" + expected + "\n--- actual\n" + result.stdout + "--- stderr\n" + result.stderr)
                sys.exit(1)
            print(f"check-readme: ok  {command}")
    print(f"check-readme: all {len(pairs)} examples print what the README shows")


if __name__ == "__main__":
    main()
