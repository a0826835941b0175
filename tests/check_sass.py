#!/usr/bin/env python3
"""Checks the SASS of the built kernels without a GPU (run by CTest).

Each step's lesson must be visible in the machine code:
  - no sgemm_* kernel touches local memory (LDL/STL: spills or a dynamically indexed register array);
  - each kernel's registration names what its functions must show and must not show (KernelSpec::sass in
    kernels/common/registry.h: 16-byte loads, cp.async, TMA, mbarriers, wgmma ...). This script reads
    them from the checked binary, `sgemm_runner --list --json -`, and owns the vocabulary: FEATURES
    below maps each feature's name to an instruction pattern.
A check applies to the code for the SMs the kernel's requirements allow (min_cc, needs_sm90a): where a
kernel has code for older GPUs alone there is no TMA or wgmma to show, so its checks are skipped with a
note. A kernel that a check names but the binary lacks altogether fails the test, as does a feature
outside the vocabulary.
cuobjdump and nvdisasm come with a full CUDA toolkit. Where the toolkit lacks them,
scripts/test installs PyPI's nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm (pinned, one
release, in scripts/requirements.txt) into a virtual environment under the build
directory and runs this script with that environment's Python. Since CUDA 13.3,
`cuobjdump -sass` runs nvdisasm, which it looks up on PATH: this script puts the nvdisasm
it finds there. A missing tool fails the test with one line saying how to get it.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig

# The features a registration may name: name -> (instruction regex, what it shows).
FEATURES = {
    "LDG.128": (r"\bLDG\.E\.128\b", "16-byte global loads"),
    "LDS.128": (r"\bLDS\.128\b", "16-byte shared loads"),
    "LDGSTS": (r"\bLDGSTS\b", "cp.async global->shared copies"),
    "UTMALDG": (r"\bUTMALDG\b", "TMA tensor loads (cp.async.bulk.tensor)"),
    "SYNCS": (r"\bSYNCS\b", "mbarrier arrive/wait"),
    "HGMMA.TF32": (r"\bHGMMA\.\S*\.TF32\b", "wgmma with tf32 operands"),
    "IGMMA.S8": (r"\bIGMMA\.\S*\.S8\b", "wgmma with int8 operands"),
}
FORBIDDEN = [(r"\b(LDL|STL)(\.\S+)?\b", "local memory (spills)")]


HOW_TO_GET = ("run scripts/test (it installs the pinned nvidia-cuda-cuobjdump and nvidia-cuda-nvdisasm of "
              "scripts/requirements.txt into BUILD/python), or put a CUDA toolkit's cuobjdump and nvdisasm on PATH")


def find_tool(name):
    """The tool from PATH, the CUDA toolkit, or this Python's site-packages (PyPI's nvidia-cuda-*)."""
    candidates = [shutil.which(name)]
    for root in {os.environ.get("CUDA_HOME", "/usr/local/cuda"), "/usr/local/cuda"}:
        candidates.append(os.path.join(root, "bin", name))
    for site in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        candidates += sorted(glob.glob(os.path.join(site, "nvidia", "cu*", "bin", name)))
        candidates += sorted(glob.glob(os.path.join(site, "nvidia", "cuda_*", "bin", name)))
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


class CuobjdumpError(Exception):
    """cuobjdump failed: `last_line` is its last error line; `nvdisasm_missing` when it could not run nvdisasm."""

    def __init__(self, last_line, nvdisasm_missing):
        super().__init__(last_line)
        self.last_line, self.nvdisasm_missing = last_line, nvdisasm_missing


def run_cuobjdump(cuobjdump, nvdisasm, flag, binary):
    """`cuobjdump FLAG BINARY`'s output, with nvdisasm where cuobjdump looks for it (also scripts/sass_stats)."""
    env = dict(os.environ)
    if nvdisasm:
        env["PATH"] = os.path.dirname(nvdisasm) + os.pathsep + env.get("PATH", "")
        env["NVDISASM_PATH"] = nvdisasm
    proc = subprocess.run([cuobjdump, flag, binary], capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        err = proc.stderr.strip().splitlines()
        raise CuobjdumpError(err[-1] if err else "exit " + str(proc.returncode), "nvdisasm" in proc.stderr)
    return proc.stdout


def kernels_sass(binary, cuobjdump, nvdisasm):
    try:
        out = run_cuobjdump(cuobjdump, nvdisasm, "-sass", binary)
    except CuobjdumpError as e:
        sys.exit(f"check_sass: FAIL: {cuobjdump} -sass failed ({e.last_line})"
                 + (f"; nvdisasm is missing: {HOW_TO_GET}" if e.nvdisasm_missing else ""))
    # {(name, arch): lines}: a build for several architectures has one copy of each kernel per arch.
    functions, name, arch = {}, None, "sm_?"
    for line in out.splitlines():
        m = re.match(r"\s*code for (sm_\w+)", line)
        if m:
            arch, name = m.group(1), None
            continue
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            name = m.group(1)
            functions[(name, arch)] = []
        elif name:
            functions[(name, arch)].append(line)
    return functions


def named(key, mangled):
    """Whether the kernel `mangled` is `key`: a prefix ending in '_', else a whole name, which an
    Itanium-mangled name spells as <length><identifier> (29sgemm_11_tma_warp_specialized)."""
    if key.endswith("_"):
        return key in mangled
    return mangled == key or f"{len(key)}{key}" in mangled


def sm_number(arch):
    m = re.match(r"sm_(\d+)", arch)
    return int(m.group(1)) if m else 0


def shown(pattern):
    """The regex as a reader wants it in a message: '\\bHGMMA\\.\\S*\\.TF32\\b' -> 'HGMMA.*.TF32'."""
    return pattern.replace(r"\b", "").replace(r"\S*", "*").replace("\\", "")


def registry_checks(binary):
    """The SASS checks the registry of `binary` names, from `binary --list --json -`: a list of
    (functions, minimum SM, required features, absent features, kernel label) and a list of failures
    (features outside FEATURES). Exits where the binary prints no registry."""
    command = f"{binary} --list --json -"
    try:
        proc = subprocess.run([binary, "--list", "--json", "-"], capture_output=True, text=True)
        kernels = json.loads(proc.stdout)["kernels"]
        checks, failures = [], []
        for k in kernels:
            sass = k.get("sass")
            if not sass:
                continue
            req = k["requirements"]
            min_sm = max(req["min_cc"], 90 if req["needs_sm90a"] else 0)  # sm_90a code runs on sm_90 only
            for feature in sass["required"] + sass["absent"]:
                if feature not in FEATURES:
                    failures.append(f"{k['label']}: its registration names SASS feature '{feature}', which "
                                    f"check_sass.py does not know (known: {', '.join(FEATURES)})")
            checks.append((sass["functions"], min_sm, [f for f in sass["required"] if f in FEATURES],
                           [f for f in sass["absent"] if f in FEATURES], k["label"]))
    except OSError as e:
        sys.exit(f"check_sass: FAIL: cannot run {command} ({e})")
    except (ValueError, KeyError, TypeError) as e:
        status = f"exit {proc.returncode}" + (f", {proc.stderr.strip().splitlines()[-1]}" if proc.stderr.strip() else "")
        sys.exit(f"check_sass: FAIL: '{command}' printed no kernel registry ({status}; {type(e).__name__} {e}): "
                 "check_sass.py checks sgemm_runner, whose registry names each kernel's SASS checks")
    return checks, failures


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_sass.py BINARY")
    cuobjdump = find_tool("cuobjdump")
    if not cuobjdump:
        sys.exit(f"check_sass: FAIL: cuobjdump not found (the CUDA toolkit here has none): {HOW_TO_GET}")
    nvdisasm = find_tool("nvdisasm")
    checks, failures = registry_checks(sys.argv[1])
    functions = kernels_sass(sys.argv[1], cuobjdump, nvdisasm)
    # Mangled names contain the plain name, e.g. _ZN..sgemm_06_vectorized...
    ours = {key: "\n".join(body) for key, body in functions.items() if "sgemm_" in key[0]}
    if not ours:
        sys.exit("check_sass: no sgemm_* kernels found in " + sys.argv[1])
    several_archs = len({arch for _, arch in ours}) > 1
    # Every kernel the checks name must be in the binary (one failure per missing name).
    missing = [c[0] for c in checks if not any(named(c[0], n) for n, _ in ours)]
    failures += [f"no kernel named {p}{'*' if p.endswith('_') else ''} in the binary" for p in missing]
    notes, checked = [], len(failures)

    def label(key):
        return f"{key[0]} ({key[1]})" if several_archs else key[0]

    def matching(prefix, min_sm):
        """The kernels `prefix` names, in the archs its checks apply to (a note where there are none)."""
        found = {k: sass for k, sass in ours.items() if named(prefix, k[0])}
        if not found:  # failed above
            return {}
        usable = {k: sass for k, sass in found.items() if sm_number(k[1]) >= min_sm}
        if not usable:
            note = f"{prefix}: no sm_{min_sm} code in this binary (built for " \
                   f"{', '.join(sorted({k[1] for k in found}))}): its sm_{min_sm} checks skipped"
            if note not in notes:
                notes.append(note)
        return usable

    for prefix, min_sm, required, absent, owner in checks:
        for key, sass in matching(prefix, min_sm).items():
            for feature in required:
                pattern, what = FEATURES[feature]
                checked += 1
                if not re.search(pattern, sass):
                    failures.append(f"{label(key)}: no {shown(pattern)} ({what})")
            for feature in absent:
                pattern, what = FEATURES[feature]
                checked += 1
                hits = re.findall(pattern, sass)
                if hits:
                    failures.append(f"{label(key)}: {len(hits)} {shown(pattern)} ({what}; {owner}'s registration "
                                    "says none)")
    for key, sass in ours.items():
        for pattern, what in FORBIDDEN:
            checked += 1
            hits = re.findall(pattern, sass)
            if hits:
                failures.append(f"{label(key)}: {len(hits)} local-memory instructions ({what})")
    for n in notes:
        print("note:", n)
    for f in failures:
        print("FAIL:", f)
    print(f"sass_check: {checked - len(failures)} passed, {len(failures)} failed "
          f"({len({name for name, _ in ours})} sgemm kernels in {os.path.basename(sys.argv[1])})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
