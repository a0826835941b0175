#!/usr/bin/env python3
"""Fails when a C++/CUDA source of the project differs from what .clang-format makes of it (run by CTest).

Checks every *.cu, *.cuh, *.h and *.cpp under kernels/, runner/, tests/, include/ and examples/ that git tracks or would
track (new files too; walks those folders when this is not a git checkout) with the clang-format
release pinned in
scripts/requirements.txt: another release formats some constructs differently, so any other
clang-format is refused rather than trusted. scripts/test installs the pinned one into the build's
virtual environment and runs this script with that environment's Python. `--fix` rewrites the
files in place; `--self-test` only proves on a planted file that a misformatted source fails.

  python3 tests/check_format.py [--fix | --self-test]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
FOLDERS = ("kernels", "runner", "tests", "include", "examples")
SUFFIXES = (".cu", ".cuh", ".h", ".cpp")
HOW_TO_GET = "run scripts/test (it installs the pinned clang-format of scripts/requirements.txt into BUILD/python)"


def pinned_version() -> str:
    with open(os.path.join(REPO, "scripts", "requirements.txt")) as f:
        for line in f:
            m = re.match(r"\s*clang-format==(\S+)", line)
            if m:
                return m.group(1)
    sys.exit("check_format: FAIL: scripts/requirements.txt pins no clang-format")


def find_clang_format(version: str) -> str:
    """The pinned clang-format: beside this Python (a virtual environment's bin/), else on PATH."""
    candidates = [os.path.join(os.path.dirname(sys.executable), "clang-format"), shutil.which("clang-format")]
    found = []
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            out = subprocess.run([c, "--version"], capture_output=True, text=True).stdout
            if re.search(r"version " + re.escape(version) + r"\b", out):
                return c
            found.append(f"{c} ({out.strip() or 'no version'})")
    sys.exit(f"check_format: FAIL: no clang-format {version} found"
             + (f" (found {'; '.join(found)})" if found else "") + f": {HOW_TO_GET}")


def sources() -> list[str]:
    try:
        # Tracked files and new ones not yet added (a new step is checked before its first commit).
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", *FOLDERS],
                             cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        out = [os.path.relpath(os.path.join(d, f), REPO) for folder in FOLDERS
               for d, _, files in os.walk(os.path.join(REPO, folder)) for f in files]
    return sorted(p for p in out if p.endswith(SUFFIXES) and os.path.isfile(os.path.join(REPO, p)))


def misformatted(clang_format: str, paths: list[str], root: str) -> list[str]:
    """The paths (relative to root) whose formatted text differs from the file."""
    bad = []
    for p in paths:
        with open(os.path.join(root, p)) as f:
            text = f.read()
        proc = subprocess.run([clang_format, f"--style=file:{os.path.join(REPO, '.clang-format')}",
                               f"--assume-filename={p}"], input=text, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"check_format: FAIL: clang-format failed on {p}: {proc.stderr.strip()}")
        if proc.stdout != text:
            bad.append(p)
    return bad


def self_test(clang_format: str) -> None:
    """A planted misformatted file must be found, and the same file formatted must pass."""
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "planted.cpp"), "w") as f:
            f.write("int   f( int x ){return x;}\n")
        if misformatted(clang_format, ["planted.cpp"], tmp) != ["planted.cpp"]:
            sys.exit("check_format: FAIL: self-test: a misformatted file passed")
        with open(os.path.join(tmp, "planted.cpp"), "w") as f:
            f.write("int f(int x) { return x; }\n")
        if misformatted(clang_format, ["planted.cpp"], tmp):
            sys.exit("check_format: FAIL: self-test: a formatted file failed")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = p.add_mutually_exclusive_group()
    g.add_argument("--fix", action="store_true", help="format the files in place")
    g.add_argument("--self-test", action="store_true", help="only prove the check on a planted file")
    args = p.parse_args()
    clang_format = find_clang_format(pinned_version())
    self_test(clang_format)
    if args.self_test:
        print("check_format: self-test passed")
        return
    paths = sources()
    if not paths:
        sys.exit("check_format: FAIL: no sources found")
    if args.fix:
        style = f"--style=file:{os.path.join(REPO, '.clang-format')}"
        subprocess.run([clang_format, style, "-i", *paths], cwd=REPO, check=True)
    bad = misformatted(clang_format, paths, REPO)
    for b in bad:
        print(f"FAIL: {b} is not formatted (python3 tests/check_format.py --fix)")
    print(f"check_format: {len(paths) - len(bad)} of {len(paths)} sources formatted")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
