#!/usr/bin/env python3
"""Fails when a committed doc names a place on some machine (an absolute filesystem path).

Checks every file git tracks under docs/ and README.md (walks the tree when this is not a git
checkout): results JSONs, raw logs and pages must say 'build/runner/sgemm_runner', 'ncu' or
'run003.json', never '/work/main/build/runner/sgemm_runner', '/usr/local/cuda/bin/ncu' or
'/tmp/sgemm-bench-x1y2/run003.json'. Flagged: Unix paths under a usual root (/home, /root, /tmp,
/work, /usr, /opt, /var, /mnt, ... see UNIX_ROOTS) and Windows drive paths (C:\\..., C:/...).
Not flagged: URLs (https://host/tmp/x), relative paths and links, '$CUDA_HOME/bin', units
like TFLOP/s. A line that must name a conventional location (documentation of a lookup order,
say) can carry the marker 'check_paths: allow' (in Markdown: <!-- check_paths: allow -->);
such lines are counted in the summary.

Every run first proves the pattern on planted examples (--self-test runs only that), so the
check cannot pass by matching nothing. Exit status: 0 clean; 1 absolute paths found, no files
found or the self-test failed; 2 usage error. Standard library only.

  python3 tests/check_paths.py [--root DIR] [--self-test]
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

UNIX_ROOTS = ("home", "root", "tmp", "work", "usr", "opt", "var", "mnt", "srv", "data", "scratch", "private",
              "Users", "nix", "media", "workspace", "etc", "gpfs", "lustre", "Volumes", "dev/shm")
ALLOW_MARKER = "check_paths: allow"

# '/root...' not glued to something before it: not after a word character (TFLOP/s, runtime/CUDA,
# $CUDA_HOME/bin, a relative a/tmp/b), '.', ':' or '/' (https://host/tmp/x), '~', '-', '$', or a
# closing bracket ($(pwd)/tmp, ${X}/usr). The root must end there or go on with '/'.
_UNIX = (r"(?<![\w.:/~$)\]}-])/(?:" + "|".join(re.escape(r) for r in UNIX_ROOTS) + r")(?![\w-])"
         r"[^\s'\"`<>|;:,()\[\]{}]*")
# 'C:\...' or 'C:/...' with the drive letter standing alone (not the 's' of 'https:/').
_WINDOWS = r"(?<![\w.:/\\-])[A-Za-z]:[\\/]+[^\s'\"`<>|;:,()\[\]{}]*"
PATTERN = re.compile(f"{_UNIX}|{_WINDOWS}")

# (line, paths the check must find in it); the self-test also runs these through a file.
PLANTED_BAD = [
    ('  "runner": "/work/main/build/runner/sgemm_runner",', ["/work/main/build/runner/sgemm_runner"]),
    ("sgemm_runner --kernel 1 --json /tmp/sgemm-bench-blh4vmyd/run013.json",
     ["/tmp/sgemm-bench-blh4vmyd/run013.json"]),
    ("--out=/root/out/bench.json and /home/alice/sgemm", ["/root/out/bench.json", "/home/alice/sgemm"]),
    ("profiling 09 with /usr/local/cuda/bin/ncu (clock control: none)", ["/usr/local/cuda/bin/ncu"]),
    ("logs in /tmp. And: cannot run /tmp/x/sgemm_runner: no such file", ["/tmp", "/tmp/x/sgemm_runner"]),
    ("`/opt/nvidia/nsight-compute/ncu`, /Users/bob/x and /nix/store/abc-cuda",
     ["/opt/nvidia/nsight-compute/ncu", "/Users/bob/x", "/nix/store/abc-cuda"]),
    ("[log](/scratch/u/log.txt), /mnt/d/x, /data/x, /srv/x, /var/tmp/x, /private/tmp/x, /media/usb",
     ["/scratch/u/log.txt", "/mnt/d/x", "/data/x", "/srv/x", "/var/tmp/x", "/private/tmp/x", "/media/usb"]),
    (r"build at C:\Users\bob\sgemm\build and D:/work/x", [r"C:\Users\bob\sgemm\build", "D:/work/x"]),
    ('{"command": "C:\\\\cuda\\\\bin\\\\ncu.exe"}', ["C:\\\\cuda\\\\bin\\\\ncu.exe"]),
]
PLANTED_CLEAN = [
    "TFLOP/s (% of cuBLAS), runtime/CUDA error, 2·M·N·K / median time, a / b, 1/2",
    "see https://github.com/NVIDIA/cutlass/tree/main/tmp/x and http://example.com/home/usr/x",
    "[h200-tuning.json](h200-tuning.json), [results](results/nvidia-h200.md), ![plot](nvidia-h200-4096.png)",
    "build/runner/sgemm_runner --kernel all --size 4096,4096,4096 --json run013.json",
    "looked up on PATH, then in `$CUDA_HOME/bin`, ${CUDA_HOME}/bin or $(pwd)/tmp",
    "docs/work/tmp/x, ./tmp/x, ../usr/x, build-tuning/runner/sgemm_runner, kernels/home.md",
    "/usrx, /temporary, /homework, /tmpfile, /datasets, /optional",
    'the marker: /usr/local/cuda/bin <!-- check_paths: allow -->',
]


def find(line: str) -> list[str]:
    """The absolute paths in one line (none when it carries the allow marker)."""
    if ALLOW_MARKER in line:
        return []
    return [m.group(0).rstrip(".") for m in PATTERN.finditer(line)]


def scan_file(path: str) -> tuple[list[tuple[int, str]], int] | None:
    """([(line number, path)], lines allowed by the marker), or None for a binary file."""
    with open(path, "rb") as f:
        data = f.read()
    if b"\0" in data[:8192]:
        return None
    hits, allowed = [], 0
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        if ALLOW_MARKER in line:
            allowed += bool(PATTERN.search(line))
            continue
        hits += [(number, p) for p in find(line)]
    return hits, allowed


def self_test() -> list[str]:
    """Problems with the pattern, as messages (empty when it catches and passes what it should)."""
    problems = []
    for line, expected in PLANTED_BAD:
        got = find(line)
        if got != expected:
            problems.append(f"planted {line!r}: found {got}, expected {expected}")
    for line in PLANTED_CLEAN:
        if find(line):
            problems.append(f"clean {line!r}: wrongly found {find(line)}")
    # End to end through a file: the right line numbers, binaries skipped.
    with tempfile.TemporaryDirectory(prefix="check-paths-") as tmp:
        text = os.path.join(tmp, "page.md")
        with open(text, "w", encoding="utf-8") as f:
            f.write("\n".join(PLANTED_CLEAN[:3] + [PLANTED_BAD[1][0]] + PLANTED_CLEAN[3:] + [PLANTED_BAD[0][0]]))
        want = [(4, PLANTED_BAD[1][1][0]), (len(PLANTED_CLEAN) + 2, PLANTED_BAD[0][1][0])]
        got = scan_file(text)
        if got != (want, 1):
            problems.append(f"file scan: got {got}, expected {(want, 1)}")
        binary = os.path.join(tmp, "plot.png")
        with open(binary, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n\0\0/tmp/x")
        if scan_file(binary) is not None:
            problems.append("file scan: a binary file was not skipped")
    return problems


def tracked_files(root: str) -> list[str]:
    """docs/** and README.md, relative to root: from git when root is a checkout, else from the tree."""
    try:
        proc = subprocess.run(["git", "-C", root, "ls-files", "-z", "--", "docs", "README.md"],
                              capture_output=True, text=True, timeout=60)
        if proc.returncode == 0:
            return sorted(p for p in proc.stdout.split("\0") if p)
    except (OSError, subprocess.TimeoutExpired):
        pass
    files = ["README.md"] if os.path.isfile(os.path.join(root, "README.md")) else []
    for top, dirs, names in os.walk(os.path.join(root, "docs")):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        files += [os.path.relpath(os.path.join(top, n), root) for n in names if not n.startswith(".")]
    return sorted(f.replace(os.sep, "/") for f in files)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="check_paths", description=__doc__.split("\n\n")[0])
    p.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   help="repository root (default: the one holding this script)")
    p.add_argument("--self-test", action="store_true", help="only prove the pattern on planted examples")
    args = p.parse_args(argv)

    problems = self_test()
    for msg in problems:
        print(f"check_paths: self-test FAILED: {msg}", file=sys.stderr)
    if problems:
        return 1
    print(f"check_paths: self-test passed ({len(PLANTED_BAD)} planted lines caught, "
          f"{len(PLANTED_CLEAN)} clean lines passed)")
    if args.self_test:
        return 0

    checked = skipped = allowed = found = 0
    for rel in tracked_files(args.root):
        path = os.path.join(args.root, rel)
        if not os.path.isfile(path):  # tracked but deleted in the working tree
            continue
        result = scan_file(path)
        if result is None:
            skipped += 1
            continue
        checked += 1
        hits, n_allowed = result
        allowed += n_allowed
        for number, hit in hits:
            print(f"{rel}:{number}: absolute path {hit}")
        found += len(hits)
    if checked == 0:
        print(f"check_paths: no files found under {args.root} (docs/, README.md): nothing was checked",
              file=sys.stderr)
        return 1
    extra = f", {skipped} binary skipped" + (f", {allowed} line(s) allowed by '{ALLOW_MARKER}'" if allowed else "")
    print(f"check_paths: {checked} files checked{extra}, {found} absolute paths")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
