"""Helpers shared by scripts/bench and scripts/report (standard library only).

The JSON format is described in docs/json-format.md (schema ``sgemm-steps/2``; files of
schema ``sgemm-steps/1`` are read too).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
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

HEADLINE = (4096, 4096, 4096)

CUBLAS = 0  # the registry's number for cuBLAS, the reference every step is timed against
# The registry's number for the tuned baseline (kTunedBaseline, --list --json's "tuned_baseline"):
# cuBLASLt with the fastest of its heuristic's algorithms, timed beside cuBLAS (pct_tuned).
TUNED_BASELINE = 99
BASELINES = (CUBLAS, TUNED_BASELINE)
# Numbers from here on are tuning variants or sub-steps (kTuningFrom, --list --json's "tuning_from"): for
# kernels that a file lists without the registry's flags.
TUNING_FROM = 100
# A sub-step's key: its step (at most 4 digits) and its letter, "9a" or "09a" (find_kernel in registry.cpp).
_SUB_STEP_KEY = re.compile(r"([0-9]{1,4})([a-z])")

DEFAULT_LAYOUT = "NN"  # op(A) then op(B): the runner's default --layout, and that of rows without "layout"


def layout_of(row: dict) -> str:
    """A result row's layout ("NN", "NT", "TN", "TT"); NN in files from before --layout."""
    return row.get("layout") or DEFAULT_LAYOUT


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
    """Parses `sgemm_runner --list [--kernel KEYS] --json -`: (the kernels in ladder order, the number
    tuning variants start at). Every key the runner lists is kept (scripts/bench stores them as the
    results' "kernels": step, functions, tunable, ...); the few the scripts read get defaults for a
    runner that lists fewer. The runner's registry is the one place these facts live."""
    try:
        doc = json.loads(text)
        kernels = []
        for k in doc["kernels"]:
            k = dict(k, number=int(k["number"]), name=str(k["name"]))
            for key, default in (("idea", ""), ("precision", "fp32"), ("requirements", {}),
                                 ("tuning_variant", False)):
                k.setdefault(key, default)
            kernels.append(k)
        tuning_from = int(doc["tuning_from"])
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise ResultsError(f"unexpected output of 'sgemm_runner --list --json -': {e}") from None
    kernels.sort(key=ladder_key)
    return kernels, tuning_from


def ladder_key(k: dict) -> tuple:
    """The ladder's order, the registry's (registry.cpp): every kernel but the tuning variants by step, a
    step's sub-steps just before it by letter (08, 09a, 09b, 09, 10), then the tuning variants by number.
    A kernel without the registry's "step", "part" and "tuning_variant" (a file from before them) is a
    step or a baseline below TUNING_FROM and a tuning variant from there on."""
    number, part = k["number"], k.get("part") or ""
    if part:
        return (0, k["step"], 0, part)
    if k.get("tuning_variant", number >= TUNING_FROM):
        return (1, number, 0, "")
    return (0, number, 1, "")



def load_script(path: str, module: str | None = None):
    """The script at `path` (a name: scripts/NAME) as a module: the scripts have no .py suffix, so import
    cannot find them. `module` names it (default: the file's name with '_script')."""
    if os.sep not in path and "/" not in path:
        path = os.path.join(REPO_ROOT, "scripts", path)
    module = module or os.path.basename(path).replace("-", "_") + "_script"
    loader = importlib.machinery.SourceFileLoader(module, path)
    mod = importlib.util.module_from_spec(importlib.util.spec_from_loader(module, loader))
    loader.exec_module(mod)
    return mod

def is_baseline(k: dict) -> bool:
    """cuBLAS or the tuned cuBLASLt baseline: the registry's flag (--list --json), else by number."""
    return bool(k["baseline"]) if "baseline" in k else k["number"] in BASELINES


def kernel_number(k: dict) -> str:
    """'07', '09a', '10', '1200': a kernel's number as the tables and labels write it (a sub-step's: its
    step's and its letter)."""
    return f"{k['step']:02d}{k['part']}" if k.get("part") else f"{k['number']:02d}"


def label(k: dict) -> str:
    """'07_warptiling': the registry's label, or (a kernel known from result rows only) the same made
    from its number and name."""
    return k.get("label") or f"{kernel_number(k)}_{k['name']}"


def kernels_of(doc: dict) -> list[dict]:
    """The kernels a results file knows, in ladder order: its "kernels" (the registry, in a file of
    scripts/bench) and every kernel only its rows name (a runner JSON has no registry; its rows say a
    sub-step's step and letter)."""
    info = {int(k["number"]): dict(k) for k in doc.get("kernels") or []}
    for r in doc["results"]:
        if r["kernel"] not in info:
            info[r["kernel"]] = {"number": r["kernel"], "name": r["name"], "idea": ""}
            if r.get("part"):
                info[r["kernel"]].update(step=r["step"], part=r["part"], tuning_variant=False)
    return sorted(info.values(), key=ladder_key)


def resolve_kernels(keys, kernels: list[dict]) -> list[dict]:
    """The kernels that `keys` (a string or a list of strings) select among `kernels`, each once, by
    number: the rules of the runner's resolve_kernels / find_kernel (runner/cli.cpp, registry.cpp) for
    scripts that read a results file and have no runner at hand (with a runner,
    `sgemm_runner --list --kernel KEYS --json -` resolves instead). A number of at most 4 digits ('7',
    '07'), a sub-step's step and letter ('9a', '09a'), a name ('warptiling'), a label ('07_warptiling'),
    comma lists, and 'all' (cuBLAS included; select_kernels leaves it out, as a run does)."""
    names = [keys] if isinstance(keys, str) else list(keys or [])
    chosen = []
    for key in (part.strip() for group in names for part in group.split(",")):
        if not key:
            continue
        if key == "all":
            found = list(kernels)
        else:
            found = [k for k in kernels if _selects(key, k)][:1]
        if not found:
            known = ", ".join(label(k) for k in kernels) or "(none)"
            raise ResultsError(f"unknown kernel '{key}'; known kernels: {known}")
        chosen += [k for k in found if k not in chosen]
    return sorted(chosen, key=ladder_key)


def _selects(key: str, k: dict) -> bool:
    """Whether one key (no commas, not 'all') names kernel k, as find_kernel decides."""
    if key.isdigit():
        return len(key) <= 4 and int(key) == k["number"]
    sub = _SUB_STEP_KEY.fullmatch(key)
    if sub and k.get("part") == sub[2] and k.get("step") == int(sub[1]):
        return True
    return key in (k["name"], label(k))


def select_kernels(keys, kernels: list[dict]) -> list[dict]:
    """resolve_kernels less the baselines: the steps a run of these keys would time (the runner's
    select_kernels)."""
    return [k for k in resolve_kernels(keys, kernels) if not is_baseline(k)]


def tuned_kernel(docs: list[dict], key: str | None = None) -> dict:
    """The kernel whose `--tune` candidates (rows with "tune_candidate") the runner JSONs `docs` hold:
    the one named by `key`, or the only one there is. ResultsError when there is none, or several and
    no key."""
    kernels = kernels_of({"kernels": [k for d in docs for k in d.get("kernels") or []],
                          "results": [r for d in docs for r in d["results"]]})
    tuned = [k for k in kernels if any(r["kernel"] == k["number"] and r.get("tune_candidate")
                                       for d in docs for r in d["results"])]
    if key is not None:
        chosen = resolve_kernels(key, kernels)
        if len(chosen) != 1:
            raise ResultsError(f"--kernel {key}: selects {len(chosen)} kernels; name one")
        if chosen[0] not in tuned:
            raise ResultsError(f"--kernel {key}: {label(chosen[0])} has no --tune candidate rows here")
        return chosen[0]
    if not tuned:
        raise ResultsError("no rows with \"tune_candidate\": true (run sgemm_runner with --tune)")
    if len(tuned) > 1:
        raise ResultsError("--tune candidates of several kernels (" + ", ".join(label(k) for k in tuned)
                           + "): pick one with --kernel")
    return tuned[0]


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


def zoo_record(doc: dict) -> dict:
    """The shape zoo's record of a scripts/bench JSON (sweep.zoo: seed, shapes, caps), {} for other runs."""
    sweep = doc.get("sweep")
    zoo = sweep.get("zoo") if isinstance(sweep, dict) else None
    return zoo if isinstance(zoo, dict) else {}


def percentile(values, p) -> float | None:
    """The p-th percentile, linear between the closest ranks (numpy's default): position p/100·(n − 1)
    in the sorted values. None for no values."""
    xs = sorted(values)
    if not xs:
        return None
    pos = p / 100.0 * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


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


def fmt_sig(x, digits: int = 3) -> str:
    """x with at least `digits` significant digits, in fixed notation: 2.66, 0.0412, 116, 1937 (a whole
    number keeps all its digits)."""
    if x is None or not math.isfinite(x):
        return "—"
    if x == 0:
        return "0"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    if decimals and abs(float(f"{x:.{decimals}f}")) >= 10 ** (digits - decimals):
        decimals -= 1  # rounded up to the next power of ten: 0.99999 -> 1.00, not 1.000
    return f"{x:.{decimals}f}"


def fmt_err(x, none: str = "–") -> str:
    """A normwise error (rel_err) to 3 significant digits: 1.15e-06, 0.000101, 0; `none` for null."""
    return none if x is None else ("0" if x == 0 else f"{x:.3g}")


def err_ratio(err, base) -> float | None:
    """A kernel's error over cuBLAS's on the same inputs; None where either is missing or cuBLAS's is 0."""
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (err, base)) or base == 0:
        return None
    return err / base
