"""Helpers shared by scripts/bench and scripts/report (standard library only).

The JSON format is described in docs/json-format.md (schema ``sgemm-steps/2``; files of
schema ``sgemm-steps/1`` are read too).
"""

from __future__ import annotations

import json
import math
import os
import re

SCHEMA = "sgemm-steps/2"
ACCEPTED_SCHEMAS = ("sgemm-steps/1", "sgemm-steps/2")

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_RUNNER = os.path.join(REPO_ROOT, "build", "runner", "sgemm_runner")

# Default sweep: square sizes (plotted against size) and the irregular suite
# (summarised by the geometric mean of % of cuBLAS).
DEFAULT_SQUARE = [(n, n, n) for n in (128, 256, 512, 1024, 2048, 4096, 8192)]
DEFAULT_IRREGULAR = [
    (4095, 4097, 4093),
    (3000, 3000, 3000),
    (1024, 1024, 8192),
    (256, 256, 16384),
    (4096, 64, 4096),
    (64, 4096, 4096),
    (8192, 8192, 1024),
]
# --quick: a short smoke-test sweep that still has the 4096^3 headline size.
QUICK_SIZES = [(256, 256, 256), (1024, 1024, 1024), (4096, 4096, 4096), (4095, 4097, 4093), (4096, 64, 4096)]

# Default caps for the slow early steps: kernel -> cap edge.
DEFAULT_CAPS = {1: 2048, 2: 4096}

HEADLINE = (4096, 4096, 4096)

CUBLAS = 0


class ResultsError(Exception):
    """Bad input: a missing, malformed or inconsistent results file or argument."""


# ---------------------------------------------------------------- sizes


def parse_size(text: str) -> tuple[int, int, int]:
    """'M,N,K' (or 'N' for N,N,N) -> (M, N, K)."""
    parts = [p.strip() for p in re.split(r"[,x×]", text.strip())]
    if len(parts) == 1:
        parts = parts * 3
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ResultsError(f"bad size '{text}': expected M,N,K (three positive integers) or a single N for N,N,N")
    size = tuple(int(p) for p in parts)
    if min(size) <= 0:
        raise ResultsError(f"bad size '{text}': dimensions must be positive")
    return size  # type: ignore[return-value]


def size_arg(text: str) -> str:
    """'M,N,K' as the runner's --size wants it."""
    return ",".join(str(d) for d in parse_size(text))


def is_pow2_square(size) -> bool:
    m, n, k = size
    return m == n == k and m > 0 and (m & (m - 1)) == 0


def classify_sizes(sizes):
    """Split sizes into (square, irregular): square = M = N = K a power of two; everything else is irregular."""
    square = [tuple(s) for s in sizes if is_pow2_square(s)]
    irregular = [tuple(s) for s in sizes if not is_pow2_square(s)]
    return square, irregular


def size_label(size) -> str:
    m, n, k = size
    return f"{m}³" if m == n == k else f"{m}×{n}×{k}"


def cap_allows(size, cap) -> bool:
    """A kernel with cap C runs only when 2·M·N·K <= 2·C³ (no more work than a C³ problem)."""
    if cap is None:
        return True
    m, n, k = size
    return m * n * k <= cap**3


# ---------------------------------------------------------------- runner --list


def parse_kernel_list(text: str) -> tuple[list[dict], int]:
    """Parses `sgemm_runner --list --json -`: (the kernels sorted by number, the number tuning
    variants start at). Tuning variants (-DSGEMM_TUNING=ON builds) are left out of the default
    sweep and the README tables; the runner's registry is the one place that number lives."""
    try:
        doc = json.loads(text)
        kernels = [{"number": int(k["number"]), "name": str(k["name"]), "idea": str(k.get("idea", "")),
                    "precision": str(k.get("precision", "fp32")), "requirements": k.get("requirements", {}),
                    "tuning_variant": bool(k.get("tuning_variant", False))} for k in doc["kernels"]]
        tuning_from = int(doc["tuning_from"])
    except (ValueError, KeyError, TypeError) as e:
        raise ResultsError(f"unexpected output of 'sgemm_runner --list --json -': {e}") from None
    kernels.sort(key=lambda k: k["number"])
    return kernels, tuning_from


def label(number: int, name: str) -> str:
    return f"{number:02d}_{name}"


def resolve_kernel(key: str, kernels: list[dict]) -> dict:
    """Kernel by number ('7', '07'), name ('warptiling') or label ('07_warptiling'), like the runner does."""
    key = key.strip()
    for k in kernels:
        if key.isdigit():
            if int(key) == k["number"]:
                return k
        elif key in (k["name"], label(k["number"], k["name"])):
            return k
    known = ", ".join(label(k["number"], k["name"]) for k in kernels) or "(none)"
    raise ResultsError(f"unknown kernel '{key}'; registered kernels: {known}")


# ---------------------------------------------------------------- results files

_RESULT_FIELDS = ("kernel", "name", "M", "N", "K", "median_ms", "tflops", "pct_cublas", "status")


def validate(doc, source: str = "results") -> dict:
    """Checks the parts of the schema the tools rely on; raises ResultsError with a clear message."""
    if not isinstance(doc, dict):
        raise ResultsError(f"{source}: top level is not a JSON object")
    if doc.get("schema") not in ACCEPTED_SCHEMAS:
        raise ResultsError(f"{source}: schema is {doc.get('schema')!r}, expected one of {ACCEPTED_SCHEMAS!r}")
    for key in ("device", "settings", "results"):
        if key not in doc:
            raise ResultsError(f"{source}: missing top-level key '{key}'")
    if doc["device"] is None and not doc["results"]:
        raise ResultsError(f"{source}: no results and no device: every runner invocation failed "
                           "(see sweep.runs for the errors)")
    if not isinstance(doc["device"], dict) or not isinstance(doc["settings"], dict):
        raise ResultsError(f"{source}: 'device' and 'settings' must be objects")
    if not isinstance(doc["results"], list):
        raise ResultsError(f"{source}: 'results' is not a list")
    for i, row in enumerate(doc["results"]):
        if not isinstance(row, dict):
            raise ResultsError(f"{source}: results[{i}] is not an object")
        missing = [f for f in _RESULT_FIELDS if f not in row]
        if missing:
            raise ResultsError(f"{source}: results[{i}] lacks {', '.join(missing)}")
        for f in ("kernel", "M", "N", "K"):
            if not isinstance(row[f], int) or isinstance(row[f], bool):
                raise ResultsError(f"{source}: results[{i}].{f} is not an integer")
    return doc


def load_results(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ResultsError(f"cannot read {path}: {e.strerror}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ResultsError(f"{path}: malformed JSON: {e}") from None
    return validate(doc, path)


# ---------------------------------------------------------------- paths in committed files
#
# Bench JSONs and the pages made from them get committed, so nothing written into them may
# name a place on the machine that made them (tests/check_paths.py checks docs/ for this).


def display_path(path: str, guess_repo_part: bool = False) -> str:
    """A path as it may be written into a committed file.

    Inside the repository: relative to its root ('build/runner/sgemm_runner'). Elsewhere: the
    basename ('/tmp/sgemm-bench-x1y2/run003.json' -> 'run003.json'). With guess_repo_part, an
    absolute path from another machine whose checkout lived elsewhere keeps its part from a
    'build*' directory on ('/home/u/sgemm/build/runner/sgemm_runner' -> 'build/runner/sgemm_runner').
    """
    if not path:
        return path
    windows = re.match(r"^[A-Za-z]:[\\/]", path) is not None
    if not windows:
        full = os.path.abspath(os.path.expanduser(path))
        try:
            inside = os.path.commonpath([full, REPO_ROOT]) == REPO_ROOT
        except ValueError:  # different drives
            inside = False
        if inside:
            rel = os.path.relpath(full, REPO_ROOT)
            return "." if rel == "." else rel.replace(os.sep, "/")
    parts = [p for p in re.split(r"[\\/]+", path) if p]
    if windows:
        parts = parts[1:]  # the drive
    if guess_repo_part:
        for i, part in enumerate(parts[:-1]):
            if part.startswith("build"):
                return "/".join(parts[i:])
    return parts[-1] if parts else "."


# An absolute path: '/x...' not preceded by a word character, '.', ':' or '/' (so not 'TFLOP/s',
# a relative 'a/b' or a URL's '//host/path'), '~/x...', or a Windows drive path 'C:\x...' or 'C:/x...'.
_ABS_PATH = re.compile(r"(?:(?<![\w.:/~\\-])/|(?<![\w.:/\\-])~/|(?<![\w.:/\\-])[A-Za-z]:[\\/])"
                       r"[^\s'\"`<>|;,()\[\]{}:*?]*")


def scrub_paths(text: str, guess_repo_part: bool = True) -> str:
    """text with every absolute path replaced by display_path(path, guess_repo_part).

    For commands and messages taken from a JSON that an older scripts/bench (or another machine)
    wrote, before they go into a page that gets committed.
    """
    if not isinstance(text, str):
        return text

    def repl(m):
        path = m.group(0)
        trail = ""
        while path and path[-1] in ".":  # sentence end, not part of the path
            path, trail = path[:-1], path[-1] + trail
        if path in ("/", "~/") or re.fullmatch(r"[A-Za-z]:[\\/]", path):
            return m.group(0)
        return display_path(path, guess_repo_part) + trail

    return _ABS_PATH.sub(repl, text)


def write_json(path: str, doc: dict) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(tmp, path)


# ---------------------------------------------------------------- formatting and maths


def slugify(text: str) -> str:
    """'NVIDIA H100 80GB HBM3' -> 'nvidia-h100-80gb-hbm3'."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug or "unknown-device"


def geomean(values) -> float | None:
    values = [v for v in values if v is not None and math.isfinite(v) and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def fmt_tflops(x) -> str:
    """About three significant digits: 51.2, 7.43, 0.812, 0.046."""
    if x is None or not math.isfinite(x):
        return "—"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def fmt_pct(p) -> str:
    if p is None or not math.isfinite(p):
        return "—"
    return f"{p:.1f}%" if p >= 1 else f"{p:.2f}%"
